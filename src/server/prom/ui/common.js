/*
 * Shared by the status pages of the metrics port (Alerts, Rules, Targets, Status, TSDB Status, Flags, Config):
 * fetching Tessera's own JSON API, building DOM nodes, and the formats Prometheus's UI shows. Label values,
 * annotations and error texts come from scraped targets and rule files, so they are only ever set as text
 * (createTextNode / textContent / attribute values), never parsed as HTML.
 */
var Tessera = (function () {
  'use strict';

  /** GET a /api/v1 path; resolves with `data`, rejects with the API's error text. */
  function api(path) {
    return fetch(path, { headers: { Accept: 'application/json' } }).then(function (r) {
      return r.text().then(function (text) {
        var json;
        try { json = JSON.parse(text); } catch (e) { throw new Error(path + ': ' + r.status + ' ' + text.trim()); }
        if (json.status !== 'success') throw new Error(path + ': ' + (json.error || r.statusText));
        return json.data;
      });
    });
  }

  /**
   * `h('td', {className: 'x', title: t}, [child, 'text'])`: an element with properties and children; strings
   * become text nodes, null/undefined children are skipped.
   */
  function h(tag, props, children) {
    var el = document.createElement(tag);
    if (props) Object.keys(props).forEach(function (k) {
      if (k.indexOf('data-') === 0) el.setAttribute(k, props[k]); else el[k] = props[k];
    });
    (children || []).forEach(function (c) {
      if (c === null || c === undefined) return;
      el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    });
    return el;
  }

  /** Label badges `name="value"`, sorted by name as Prometheus shows them. */
  function labels(obj) {
    return h('div', { className: 'labels' }, Object.keys(obj || {}).sort().map(function (k) {
      return h('span', { className: 'badge label' }, [k + '="' + obj[k] + '"']);
    }));
  }

  function badge(text, cls) { return h('span', { className: 'badge ' + cls }, [text]); }

  /** Seconds as Prometheus's humanizeDuration shows them: "10.404ms", "2.345s", "1m 5s", "3h 2m 1s", "2d 1h". */
  function duration(sec) {
    if (!isFinite(sec)) return String(sec);
    if (sec < 1) return Math.round(sec * 1e6) / 1e3 + 'ms';
    if (sec < 60) return Math.round(sec * 1e3) / 1e3 + 's';
    var s = Math.floor(sec), d = Math.floor(s / 86400), hh = Math.floor(s / 3600) % 24, m = Math.floor(s / 60) % 60;
    var parts = [];
    if (d) parts.push(d + 'd');
    if (hh) parts.push(hh + 'h');
    if (m) parts.push(m + 'm');
    if (s % 60) parts.push((s % 60) + 's');
    return parts.join(' ');
  }

  /** The Go zero time (year 1) means "never" in the API. */
  function isNever(iso) { return !iso || iso.indexOf('0001-01-01') === 0; }

  /** "2.345s ago" / "never", measured against the browser's clock. */
  function ago(iso) {
    if (isNever(iso)) return 'never';
    return duration(Math.max(0, (Date.now() - Date.parse(iso)) / 1000)) + ' ago';
  }

  /** Shows `msg` in the page's #error box (or hides it for null). */
  function showError(msg) {
    var el = document.getElementById('error');
    if (!el) return;
    el.hidden = !msg;
    el.textContent = msg || '';
  }

  /** A two-column table of [name, value] rows. */
  function kvTable(id, rows) {
    return h('table', { className: 'data kv', id: id }, [h('tbody', null, rows.map(function (r) {
      return h('tr', null, [h('th', null, [r[0]]), h('td', null, [r[1] === undefined || r[1] === null ? '' : r[1]])]);
    }))]);
  }

  /** Marks the page as rendered (the browser tests wait on this) or failed. */
  function done(err) {
    if (err) showError(err.message || String(err));
    document.body.setAttribute('data-loaded', err ? 'error' : 'ok');
  }

  return { api: api, h: h, labels: labels, badge: badge, duration: duration, ago: ago, isNever: isNever, showError: showError, kvTable: kvTable, done: done };
})();
