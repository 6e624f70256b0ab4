// Expression browser: instant queries render as a table, range queries as a uPlot chart.
(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var mode = 'table';
  var plot = null;

  function metricName(m) {
    var name = m.__name__ || '';
    var parts = Object.keys(m).filter(function (k) { return k !== '__name__'; })
      .map(function (k) { return k + '="' + m[k] + '"'; });
    return name + (parts.length || !name ? '{' + parts.join(', ') + '}' : '');
  }

  function parseRange(s) {
    var m = /^(\d+)([smhdw])$/.exec(s.trim());
    if (!m) return 3600;
    return Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400, w: 604800 }[m[2]];
  }

  function api(path, params) {
    var body = new URLSearchParams(params).toString();
    return fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: body })
      .then(function (r) { return r.json(); })
      .then(function (j) { if (j.status !== 'success') throw new Error(j.error); return j.data; });
  }

  function showError(msg) { $('error').textContent = msg || ''; }

  function renderTable(data) {
    var tbody = $('table').querySelector('tbody');
    tbody.innerHTML = '';
    var rows = [];
    if (data.resultType === 'vector') rows = data.result.map(function (s) { return [metricName(s.metric), s.value[1]]; });
    else if (data.resultType === 'matrix') rows = data.result.map(function (s) {
      return [metricName(s.metric), s.values.map(function (v) { return v[1] + ' @' + v[0]; }).join('\n')];
    });
    else rows = [[data.resultType, data.result[1]]];
    if (rows.length === 0) rows = [['Empty query result', '']];
    rows.forEach(function (r) {
      var tr = document.createElement('tr');
      var a = document.createElement('td'); a.textContent = r[0];
      var b = document.createElement('td'); b.textContent = r[1]; b.className = 'value';
      tr.appendChild(a); tr.appendChild(b); tbody.appendChild(tr);
    });
    $('status').textContent = rows.length + ' result(s)';
  }

  function renderGraph(data, start, end, step) {
    var xs = [];
    for (var t = start; t <= end; t += step) xs.push(t);
    var index = new Map(xs.map(function (x, i) { return [x, i]; }));
    var series = [{}], columns = [xs];
    data.result.forEach(function (s, i) {
      var col = new Array(xs.length).fill(null);
      s.values.forEach(function (p) { var k = index.get(p[0]); if (k !== undefined) col[k] = Number(p[1]); });
      columns.push(col);
      series.push({ label: metricName(s.metric), stroke: 'hsl(' + ((i * 67) % 360) + ',65%,45%)', width: 1.5 });
    });
    if (plot) { plot.destroy(); plot = null; }
    var el = $('graph');
    el.innerHTML = '';
    plot = new uPlot({ width: Math.max(400, el.clientWidth || 800), height: 300, series: series, scales: { x: { time: true } } }, columns, el);
    el.dataset.series = String(data.result.length);
    $('status').textContent = data.result.length + ' series';
  }

  function run() {
    var expr = $('expr').value;
    showError('');
    var endInput = $('end').value.trim();
    var now = endInput ? Number(endInput) : Date.now() / 1000;
    if (mode === 'table') {
      api('/api/v1/query', { query: expr, time: String(now) }).then(renderTable).catch(function (e) { showError(e.message); });
      return;
    }
    var range = parseRange($('range').value);
    var end = Math.floor(now), start = end - range;
    var step = Math.max(1, Math.ceil(range / 250));
    api('/api/v1/query_range', { query: expr, start: String(start), end: String(end), step: String(step) })
      .then(function (d) { renderGraph(d, start, end, step); }).catch(function (e) { showError(e.message); });
  }

  function setMode(m) {
    mode = m;
    $('tab-table').classList.toggle('active', m === 'table');
    $('tab-graph').classList.toggle('active', m === 'graph');
    $('table-pane').classList.toggle('hidden', m !== 'table');
    $('graph-pane').classList.toggle('hidden', m !== 'graph');
    if ($('expr').value.trim()) run();
  }

  $('run').addEventListener('click', run);
  $('tab-table').addEventListener('click', function () { setMode('table'); });
  $('tab-graph').addEventListener('click', function () { setMode('graph'); });
  $('expr').addEventListener('keydown', function (e) { if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); run(); } });
  var params = new URLSearchParams(location.search);
  if (params.get('end')) $('end').value = params.get('end');
  if (params.get('tab') === 'graph') setMode('graph');
  if (params.get('expr')) { $('expr').value = params.get('expr'); run(); }
})();
