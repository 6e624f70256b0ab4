/*
 * Tessera's expression browser: runs /api/v1/query (Table) and /api/v1/query_range (Graph, drawn with the
 * bundled uPlot) and shows the API's error text for bad queries. State lives in the URL like Prometheus's
 * (`g0.expr`, `g0.tab` 0 = graph / 1 = table, `g0.range_input`, `g0.end_input`, `g0.moment_input`, `g0.step_input`).
 */
(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var state = { tab: 'table', chart: null };
  var DURATION_RE = /^(?:(\d+)y)?(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;

  function parseRange(s) {
    var m = DURATION_RE.exec(String(s).trim());
    if (!m || String(s).trim() === '') return null;
    var mult = [31536000, 604800, 86400, 3600, 60, 1], total = 0;
    for (var i = 0; i < mult.length; i++) if (m[i + 1]) total += Number(m[i + 1]) * mult[i];
    return total > 0 ? total : null;
  }

  function metricName(metric) {
    var name = metric.__name__ || '';
    var parts = Object.keys(metric).filter(function (k) { return k !== '__name__'; }).sort().map(function (k) {
      return k + '=' + JSON.stringify(metric[k]);
    });
    return name + '{' + parts.join(', ') + '}';
  }

  function showError(msg) {
    var el = $('error');
    if (!msg) { el.hidden = true; el.textContent = ''; return; }
    el.hidden = false;
    el.textContent = msg;
  }

  function timeParam(input) {
    return input.value ? String(new Date(input.value + 'Z').getTime() / 1000) : String(Date.now() / 1000);
  }

  function api(path, params) {
    var body = new URLSearchParams(params);
    var started = performance.now();
    return fetch(path, { method: 'POST', body: body, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } })
      .then(function (r) {
        return r.text().then(function (text) {
          var json;
          try { json = JSON.parse(text); } catch (e) { throw new Error('Error executing query: ' + r.status + ' ' + text.trim()); }
          if (json.status !== 'success') throw new Error('Error executing query: ' + (json.error || r.statusText));
          $('stats').textContent = 'Load time: ' + Math.round(performance.now() - started) + 'ms';
          return json.data;
        });
      });
  }

  function renderTable(data) {
    var tbody = $('result-table').querySelector('tbody');
    tbody.textContent = '';
    var rows = [];
    if (data.resultType === 'vector') {
      data.result.forEach(function (s) { rows.push([metricName(s.metric), s.value[1]]); });
    } else if (data.resultType === 'matrix') {
      data.result.forEach(function (s) {
        rows.push([metricName(s.metric), s.values.map(function (v) { return v[1] + ' @' + v[0]; }).join('\n')]);
      });
    } else {
      rows.push([data.resultType, data.result[1]]);
    }
    rows.forEach(function (r) {
      var tr = document.createElement('tr');
      var a = document.createElement('td'); a.className = 'element'; a.textContent = r[0];
      var b = document.createElement('td'); b.className = 'value'; b.textContent = r[1];
      b.style.whiteSpace = 'pre';
      tr.appendChild(a); tr.appendChild(b); tbody.appendChild(tr);
    });
    $('table-empty').hidden = rows.length > 0;
  }

  var PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

  function renderGraph(data, start, end, step) {
    if (state.chart) { state.chart.destroy(); state.chart = null; }
    var series = data.resultType === 'matrix' ? data.result : [];
    $('graph-empty').hidden = series.length > 0;
    if (series.length === 0) return;
    var xs = [];
    for (var t = start; t <= end + 1e-9; t += step) xs.push(Math.round(t * 1000) / 1000);
    var index = new Map(xs.map(function (x, i) { return [x, i]; }));
    var columns = [xs];
    var specs = [{}];
    series.forEach(function (s, i) {
      var col = new Array(xs.length).fill(null);
      s.values.forEach(function (v) {
        var k = index.get(Math.round(v[0] * 1000) / 1000);
        if (k !== undefined) col[k] = Number(v[1]);
      });
      columns.push(col);
      specs.push({ label: metricName(s.metric), stroke: PALETTE[i % PALETTE.length], width: 1.5, spanGaps: false });
    });
    var el = $('chart');
    var width = Math.max(300, el.clientWidth || 800);
    // Times are shown in UTC, as the end/evaluation inputs are read.
    var opts = { width: width, height: 360, series: specs, scales: { x: { time: true } },
      tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'); } };
    state.chart = new uPlot(opts, columns, el);
  }

  function execute() {
    var expr = $('expr').value;
    showError(null);
    syncUrl();
    if (state.tab === 'table') {
      return api('/api/v1/query', { query: expr, time: timeParam($('eval-time')) })
        .then(renderTable, function (e) { renderTable({ resultType: 'vector', result: [] }); $('table-empty').hidden = true; showError(e.message); });
    }
    var range = parseRange($('range').value);
    if (range === null) { showError('Invalid range: ' + $('range').value); return Promise.resolve(); }
    var end = Number(timeParam($('end-time')));
    var start = end - range;
    var step = Number($('step').value) || Math.max(Math.floor(range / 250), 1);
    return api('/api/v1/query_range', { query: expr, start: String(start), end: String(end), step: String(step) })
      .then(function (d) { renderGraph(d, start, end, step); },
        function (e) { if (state.chart) { state.chart.destroy(); state.chart = null; } $('graph-empty').hidden = true; showError(e.message); });
  }

  function setTab(tab) {
    state.tab = tab;
    $('table-panel').hidden = tab !== 'table';
    $('graph-panel').hidden = tab !== 'graph';
    $('tab-table').classList.toggle('active', tab === 'table');
    $('tab-graph').classList.toggle('active', tab === 'graph');
  }

  function syncUrl() {
    var p = new URLSearchParams();
    p.set('g0.expr', $('expr').value);
    p.set('g0.tab', state.tab === 'graph' ? '0' : '1');
    p.set('g0.range_input', $('range').value);
    if ($('end-time').value) p.set('g0.end_input', $('end-time').value.replace('T', ' '));
    if ($('eval-time').value) p.set('g0.moment_input', $('eval-time').value.replace('T', ' '));
    if ($('step').value) p.set('g0.step_input', $('step').value);
    history.replaceState(null, '', '/graph?' + p.toString());
  }

  function init() {
    var p = new URLSearchParams(location.search);
    $('expr').value = p.get('g0.expr') || '';
    if (p.get('g0.range_input')) $('range').value = p.get('g0.range_input');
    // Prometheus links write times as "2006-01-02 15:04:05" (UTC); the inputs take "2006-01-02T15:04:05".
    if (p.get('g0.end_input')) $('end-time').value = p.get('g0.end_input').replace(' ', 'T');
    if (p.get('g0.moment_input')) $('eval-time').value = p.get('g0.moment_input').replace(' ', 'T');
    if (p.get('g0.step_input')) $('step').value = p.get('g0.step_input');
    setTab(p.get('g0.tab') === '0' ? 'graph' : 'table');
    $('query-form').addEventListener('submit', function (ev) { ev.preventDefault(); execute(); });
    $('expr').addEventListener('keydown', function (ev) {
      if (ev.key === 'Enter' && !ev.shiftKey) { ev.preventDefault(); execute(); }
    });
    ['tab-table', 'tab-graph'].forEach(function (id) {
      $(id).addEventListener('click', function () { setTab($(id).dataset.tab); if ($('expr').value) execute(); });
    });
    if ($('expr').value) execute();
  }

  init();
})();
