/*
 * /alerts: the alerting rules of /api/v1/rules?type=alert grouped by file and group, with the count of rules
 * in each state (inactive/pending/firing) and, under each rule, its active alerts (labels, state, active
 * since, value, annotations). Each rule's alerts are the ones the rules API lists under it, as Prometheus's
 * page takes them: matching /api/v1/alerts back to rules by alertname and labels would be ambiguous (one
 * alertname in several rules, labels written as templates), so that endpoint only gives the headline count.
 */
(function () {
  'use strict';
  var T = Tessera, h = T.h;
  var groups = [];

  function definition(rule) {
    var lines = ['alert: ' + rule.name, 'expr: ' + rule.query];
    if (rule.duration) lines.push('for: ' + T.duration(rule.duration));
    if (rule.keepFiringFor) lines.push('keep_firing_for: ' + T.duration(rule.keepFiringFor));
    var section = function (title, obj) {
      var keys = Object.keys(obj || {}).sort();
      if (keys.length === 0) return;
      lines.push(title + ':');
      keys.forEach(function (k) { lines.push('  ' + k + ': ' + obj[k]); });
    };
    section('labels', rule.labels);
    section('annotations', rule.annotations);
    return h('pre', { className: 'rule-definition' }, [lines.join('\n')]);
  }

  function annotations(obj) {
    return h('dl', { className: 'annotations' }, Object.keys(obj || {}).sort().reduce(function (out, k) {
      out.push(h('dt', null, [k]), h('dd', null, [obj[k]]));
      return out;
    }, []));
  }

  function alertTable(list, showAnnotations) {
    return h('table', { className: 'data alerts' }, [
      h('thead', null, [h('tr', null, ['Labels', 'State', 'Active Since', 'Value'].concat(showAnnotations ? ['Annotations'] : []).map(function (c) { return h('th', null, [c]); }))]),
      h('tbody', null, list.map(function (a) {
        return h('tr', { className: 'alert', 'data-state': a.state }, [
          h('td', null, [T.labels(a.labels)]),
          h('td', null, [T.badge(a.state.toUpperCase(), 'state-' + a.state)]),
          h('td', { className: 'active-at', title: a.activeAt }, [a.activeAt]),
          h('td', { className: 'mono' }, [a.value]),
          showAnnotations ? h('td', null, [annotations(a.annotations)]) : null,
        ]);
      })),
    ]);
  }

  function render() {
    var wanted = {};
    document.querySelectorAll('.state-filter').forEach(function (c) { wanted[c.value] = c.checked; });
    var showAnnotations = document.getElementById('show-annotations').checked;
    var counts = { inactive: 0, pending: 0, firing: 0 };
    var root = document.getElementById('groups');
    root.textContent = '';
    groups.forEach(function (g) {
      var rules = g.rules.filter(function (r) { return r.type === 'alerting'; });
      rules.forEach(function (r) { counts[r.state] = (counts[r.state] || 0) + 1; });
      var shown = rules.filter(function (r) { return wanted[r.state] !== false; });
      if (shown.length === 0) return;
      root.appendChild(h('section', { className: 'group', 'data-group': g.name }, [
        h('h2', null, [g.file + ' > ' + g.name]),
      ].concat(shown.map(function (r) {
        var mine = r.alerts || [];
        return h('details', { className: 'alert-rule ' + r.state, 'data-rule': r.name, 'data-state': r.state, open: mine.length > 0 }, [
          h('summary', null, [r.name + ' ', h('span', { className: 'counts' }, ['(' + mine.length + ' active)'])]),
          definition(r),
          mine.length ? alertTable(mine, showAnnotations) : null,
        ]);
      }))));
    });
    Object.keys(counts).forEach(function (s) { document.getElementById('count-' + s).textContent = String(counts[s]); });
    document.getElementById('no-rules').hidden = groups.some(function (g) {
      return g.rules.some(function (r) { return r.type === 'alerting'; });
    });
  }

  function init() {
    document.querySelectorAll('.state-filter, #show-annotations').forEach(function (c) { c.addEventListener('change', render); });
    Promise.all([T.api('/api/v1/rules?type=alert'), T.api('/api/v1/alerts')]).then(function (res) {
      groups = res[0].groups || [];
      var active = res[1].alerts || [];
      var firing = active.filter(function (a) { return a.state === 'firing'; }).length;
      document.getElementById('active-summary').textContent = active.length + ' active alert' + (active.length === 1 ? '' : 's') + ' (' + firing + ' firing)';
      render();
      T.done(null);
    }).catch(T.done);
  }

  init();
})();
