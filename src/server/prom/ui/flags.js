/* /flags: the command-line flags of /api/v1/status/flags, sorted by name, with a filter on name or value. */
(function () {
  'use strict';
  var T = Tessera, h = T.h;
  var flags = {};

  function render() {
    var q = document.getElementById('flag-filter').value.toLowerCase();
    var names = Object.keys(flags).sort().filter(function (k) {
      return !q || k.toLowerCase().indexOf(q) >= 0 || String(flags[k]).toLowerCase().indexOf(q) >= 0;
    });
    var root = document.getElementById('flags');
    root.textContent = '';
    root.appendChild(h('table', { className: 'data', id: 'flags-table' }, [
      h('thead', null, [h('tr', null, [h('th', null, ['Flag']), h('th', null, ['Value'])])]),
      h('tbody', null, names.map(function (k) {
        return h('tr', null, [h('td', { className: 'mono' }, ['--' + k]), h('td', { className: 'mono' }, [String(flags[k])])]);
      })),
    ]));
  }

  document.getElementById('flag-filter').addEventListener('input', render);
  T.api('/api/v1/status/flags').then(function (data) { flags = data; render(); T.done(null); }).catch(T.done);
})();
