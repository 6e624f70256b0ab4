/*
 * /rules: each rule group of /api/v1/rules (file, interval, last evaluation, evaluation time) and its rules,
 * written out as in a rule file (record/alert, expr, for, labels, annotations), with health, last error, last
 * evaluation and evaluation time, as Prometheus's Rules page lays them out.
 */
(function () {
  'use strict';
  var T = Tessera, h = T.h;

  function definition(r) {
    var lines = [(r.type === 'alerting' ? 'alert: ' : 'record: ') + r.name, 'expr: ' + r.query];
    if (r.type === 'alerting' && r.duration) lines.push('for: ' + T.duration(r.duration));
    if (r.type === 'alerting' && r.keepFiringFor) lines.push('keep_firing_for: ' + T.duration(r.keepFiringFor));
    [['labels', r.labels], ['annotations', r.annotations]].forEach(function (s) {
      var keys = Object.keys(s[1] || {}).sort();
      if (keys.length === 0) return;
      lines.push(s[0] + ':');
      keys.forEach(function (k) { lines.push('  ' + k + ': ' + s[1][k]); });
    });
    return h('pre', null, [lines.join('\n')]);
  }

  function group(g) {
    return h('section', { className: 'group', 'data-group': g.name }, [
      h('table', { className: 'data rules' }, [
        h('thead', null, [
          h('tr', null, [
            h('th', { colSpan: 3 }, [h('strong', null, [g.name]), ' ', h('span', { className: 'muted' }, [g.file + ' · every ' + T.duration(g.interval)])]),
            h('th', null, [T.ago(g.lastEvaluation)]),
            h('th', null, [T.duration(g.evaluationTime)]),
          ]),
          h('tr', null, ['Rule', 'State', 'Error', 'Last Evaluation', 'Evaluation Time'].map(function (c) { return h('th', null, [c]); })),
        ]),
        h('tbody', null, g.rules.map(function (r) {
          return h('tr', { className: 'rule', 'data-rule': r.name, 'data-type': r.type }, [
            h('td', { className: 'definition' }, [definition(r)]),
            h('td', { className: 'health' }, [T.badge(r.health.toUpperCase(), 'state-' + r.health)]),
            h('td', { className: 'last-error mono' }, [r.lastError || '']),
            h('td', null, [T.ago(r.lastEvaluation)]),
            h('td', null, [T.duration(r.evaluationTime)]),
          ]);
        })),
      ]),
    ]);
  }

  T.api('/api/v1/rules').then(function (data) {
    var groups = data.groups || [];
    var root = document.getElementById('groups');
    groups.forEach(function (g) { root.appendChild(group(g)); });
    document.getElementById('no-rules').hidden = groups.length > 0;
    T.done(null);
  }).catch(T.done);
})();
