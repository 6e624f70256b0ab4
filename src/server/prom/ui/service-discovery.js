/*
 * /service-discovery: for each scrape pool, every discovered target's labels before relabelling beside the
 * target labels they became, or "Dropped" when relabelling dropped it (activeTargets and droppedTargets of
 * /api/v1/targets), as Prometheus's Service Discovery page shows them. Dropped targets carry no pool name in
 * the API, so they are grouped by their discovered `job` label, as Prometheus's page does.
 */
(function () {
  'use strict';
  var T = Tessera, h = T.h;

  T.api('/api/v1/targets').then(function (data) {
    var pools = new Map();
    var pool = function (name) {
      if (!pools.has(name)) pools.set(name, { active: 0, rows: [] });
      return pools.get(name);
    };
    (data.activeTargets || []).forEach(function (t) {
      var p = pool(t.scrapePool);
      p.active++;
      p.rows.push({ discovered: t.discoveredLabels, labels: t.labels });
    });
    (data.droppedTargets || []).forEach(function (t) {
      pool((t.discoveredLabels || {}).job || '').rows.push({ discovered: t.discoveredLabels, labels: null });
    });
    var names = Array.from(pools.keys()).sort();
    var index = document.getElementById('pool-index'), root = document.getElementById('pools');
    names.forEach(function (name) {
      var p = pools.get(name);
      var counts = '(' + p.active + ' / ' + p.rows.length + ' active targets)';
      index.appendChild(h('li', null, [h('a', { href: '#pool-' + encodeURIComponent(name) }, [name]), ' ' + counts]));
      root.appendChild(h('section', { className: 'pool', id: 'pool-' + encodeURIComponent(name), 'data-pool': name }, [
        h('h2', null, [name + ' ', h('span', { className: 'counts' }, [counts])]),
        h('table', { className: 'data' }, [
          h('thead', null, [h('tr', null, [h('th', null, ['Discovered Labels']), h('th', null, ['Target Labels'])])]),
          h('tbody', null, p.rows.map(function (r) {
            return h('tr', { className: 'sd-target', 'data-dropped': r.labels ? 'false' : 'true' }, [
              h('td', { className: 'discovered' }, [T.labels(r.discovered)]),
              h('td', { className: 'target-labels' }, [r.labels ? T.labels(r.labels) : T.badge('Dropped', 'state-unknown')]),
            ]);
          })),
        ]),
      ]));
    });
    T.done(null);
  }).catch(T.done);
})();
