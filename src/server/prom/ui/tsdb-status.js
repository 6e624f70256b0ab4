/*
 * /tsdb-status: the head block's statistics and the top-10 cardinality tables of /api/v1/status/tsdb, under
 * the headings Prometheus's TSDB Status page uses.
 */
(function () {
  'use strict';
  var T = Tessera, h = T.h;

  /** Head min/max times are milliseconds; an empty head reports the int64 extremes, shown as "no data". */
  function time(ms) {
    return Math.abs(ms) >= 9e15 ? 'no data' : new Date(ms).toISOString() + ' (' + ms + ')';
  }

  function top(id, title, col, valueCol, rows) {
    return h('section', null, [
      h('h3', null, [title]),
      h('table', { className: 'data', id: id }, [
        h('thead', null, [h('tr', null, [h('th', null, [col]), h('th', null, [valueCol])])]),
        h('tbody', null, (rows || []).map(function (r) {
          return h('tr', null, [h('td', { className: 'mono' }, [r.name]), h('td', null, [String(r.value)])]);
        })),
      ]),
    ]);
  }

  T.api('/api/v1/status/tsdb').then(function (d) {
    var s = d.headStats || {};
    document.getElementById('head-stats').appendChild(T.kvTable('head-stats-table', [
      ['Number of Series', String(s.numSeries)],
      ['Number of Chunks', String(s.chunkCount)],
      ['Number of Label Pairs', String(s.numLabelPairs)],
      ['Current Min Time', time(s.minTime)],
      ['Current Max Time', time(s.maxTime)],
    ]));
    var card = document.getElementById('cardinality');
    card.appendChild(top('top-label-names', 'Top 10 label names with value count', 'Name', 'Count', d.labelValueCountByLabelName));
    card.appendChild(top('top-metric-names', 'Top 10 series count by metric names', 'Name', 'Count', d.seriesCountByMetricName));
    card.appendChild(top('top-memory', 'Top 10 label names with high memory usage', 'Name', 'Bytes', d.memoryInBytesByLabelName));
    card.appendChild(top('top-pairs', 'Top 10 series count by label value pairs', 'Name', 'Count', d.seriesCountByLabelValuePair));
    T.done(null);
  }).catch(T.done);
})();
