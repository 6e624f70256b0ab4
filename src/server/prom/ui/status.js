/*
 * /status: runtime information (/api/v1/status/runtimeinfo), build information (/api/v1/status/buildinfo)
 * and the discovered Alertmanagers (/api/v1/alertmanagers), with the row names Prometheus's page uses.
 */
(function () {
  'use strict';
  var T = Tessera, h = T.h;

  function runtime(d) {
    return T.kvTable('runtime-table', [
      ['Start time', d.startTime],
      ['Working directory', d.CWD],
      ['Configuration reload', d.reloadConfigSuccess ? 'Successful' : 'Unsuccessful'],
      ['Last successful configuration reload', d.lastConfigTime],
      ['WAL corruptions', String(d.corruptionCount)],
      ['Goroutines', String(d.goroutineCount)],
      ['GOMAXPROCS', String(d.GOMAXPROCS)],
      ['GOGC', d.GOGC],
      ['GODEBUG', d.GODEBUG],
      ['Storage retention', d.storageRetention],
    ]);
  }

  function build(d) {
    return T.kvTable('build-table', [
      ['Version', d.version], ['Revision', d.revision], ['Branch', d.branch],
      ['BuildUser', d.buildUser], ['BuildDate', d.buildDate], ['GoVersion', d.goVersion],
    ]);
  }

  function alertmanagers(d) {
    var list = d.activeAlertmanagers || [];
    if (list.length === 0) return h('p', { className: 'muted' }, ['No Alertmanagers.']);
    return h('table', { className: 'data', id: 'alertmanagers-table' }, [
      h('thead', null, [h('tr', null, [h('th', null, ['Endpoint'])])]),
      h('tbody', null, list.map(function (a) { return h('tr', null, [h('td', null, [a.url])]); })),
    ]);
  }

  Promise.all([T.api('/api/v1/status/runtimeinfo'), T.api('/api/v1/status/buildinfo'), T.api('/api/v1/alertmanagers')]).then(function (res) {
    document.getElementById('runtime').appendChild(runtime(res[0]));
    document.getElementById('build').appendChild(build(res[1]));
    document.getElementById('alertmanagers').appendChild(alertmanagers(res[2]));
    T.done(null);
  }).catch(T.done);
})();
