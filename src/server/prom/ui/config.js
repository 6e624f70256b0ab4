/* /config: the loaded configuration as YAML, from /api/v1/status/config. */
(function () {
  'use strict';
  var T = Tessera;
  var pre = document.getElementById('config');
  document.getElementById('copy-config').addEventListener('click', function () {
    // The clipboard API needs a secure context (https or localhost); elsewhere the button does nothing.
    if (navigator.clipboard) navigator.clipboard.writeText(pre.textContent).catch(function () {});
  });
  T.api('/api/v1/status/config').then(function (data) { pre.textContent = data.yaml; T.done(null); }).catch(T.done);
})();
