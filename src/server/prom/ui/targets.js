/*
 * /targets: the scrape pools of /api/v1/targets with their active targets, as Prometheus's Targets page shows
 * them (endpoint, state, labels, last scrape, duration, error). "Unhealthy only" hides healthy targets and the
 * pools left empty; each pool folds open and shut. The filter is kept in the URL (?unhealthy=1) so a link
 * reproduces the view.
 */
(function () {
  'use strict';
  var T = Tessera, h = T.h;
  var targets = [];

  function row(t) {
    // Only http(s) URLs become links: the scheme comes from relabelling, and a javascript: URL must stay text.
    return h('tr', { className: 'target', 'data-health': t.health }, [
      h('td', { className: 'endpoint' }, [/^https?:\/\//.test(t.scrapeUrl) ? h('a', { href: t.scrapeUrl }, [t.scrapeUrl]) : t.scrapeUrl]),
      h('td', { className: 'state' }, [T.badge(t.health.toUpperCase(), 'state-' + t.health)]),
      // Discovered labels (before relabelling) on hover, as Prometheus shows them.
      h('td', { className: 'target-labels', title: Object.keys(t.discoveredLabels || {}).sort().map(function (k) {
        return k + '="' + t.discoveredLabels[k] + '"';
      }).join('\n') }, [T.labels(t.labels)]),
      h('td', { className: 'last-scrape' }, [T.ago(t.lastScrape)]),
      h('td', { className: 'duration' }, [T.isNever(t.lastScrape) ? '' : T.duration(t.lastScrapeDuration)]),
      h('td', { className: 'scrape-error' }, [t.lastError ? h('span', { className: 'badge state-down' }, [t.lastError]) : '']),
    ]);
  }

  function render() {
    var unhealthyOnly = document.getElementById('unhealthy-only').checked;
    var byPool = new Map();
    targets.forEach(function (t) {
      if (!byPool.has(t.scrapePool)) byPool.set(t.scrapePool, []);
      byPool.get(t.scrapePool).push(t);
    });
    var pools = document.getElementById('pools');
    var open = {};
    pools.querySelectorAll('details.pool').forEach(function (d) { open[d.getAttribute('data-pool')] = d.open; });
    pools.textContent = '';
    Array.from(byPool.keys()).sort().forEach(function (name) {
      var all = byPool.get(name);
      var up = all.filter(function (t) { return t.health === 'up'; }).length;
      var shown = unhealthyOnly ? all.filter(function (t) { return t.health !== 'up'; }) : all;
      if (shown.length === 0) return;
      var table = h('table', { className: 'data' }, [
        h('thead', null, [h('tr', null, ['Endpoint', 'State', 'Labels', 'Last Scrape', 'Scrape Duration', 'Error'].map(function (c) { return h('th', null, [c]); }))]),
        h('tbody', null, shown.map(row)),
      ]);
      pools.appendChild(h('details', { className: 'pool', open: open[name] !== false, 'data-pool': name }, [
        h('summary', null, [name + ' ', h('span', { className: 'counts' }, ['(' + up + '/' + all.length + ' up)'])]),
        table,
      ]));
    });
    document.getElementById('no-targets').hidden = pools.childElementCount > 0;
  }

  function setAll(open) {
    document.querySelectorAll('details.pool').forEach(function (d) { d.open = open; });
  }

  function init() {
    var box = document.getElementById('unhealthy-only');
    box.checked = new URLSearchParams(location.search).get('unhealthy') === '1';
    box.addEventListener('change', function () {
      history.replaceState(null, '', box.checked ? '/targets?unhealthy=1' : '/targets');
      render();
    });
    document.getElementById('collapse-all').addEventListener('click', function () { setAll(false); });
    document.getElementById('expand-all').addEventListener('click', function () { setAll(true); });
    T.api('/api/v1/targets?state=active').then(function (data) {
      targets = data.activeTargets || [];
      render();
      T.done(null);
    }).catch(T.done);
  }

  init();
})();
