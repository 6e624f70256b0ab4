/*
 * Metric-name completion for the expression box. The names come from /api/v1/label/__name__/values, fetched
 * once when the box is first focused (a page opened from a link and never typed in costs no request). The word
 * being typed at the cursor is matched: names that start with it first, then names that contain it, at most
 * MAX shown. Arrow keys move, Enter or Tab accepts the highlighted one (the first to begin with), Escape
 * closes; a click accepts.
 *
 * Loaded before graph.js on purpose: listeners on one element run in registration order, so this one sees Enter
 * first and, while the list is open, keeps it from executing the query.
 */
(function () {
  'use strict';
  var MAX = 10;
  // A metric name as PromQL's lexer reads an identifier: the text before the cursor that could still grow into one.
  var WORD_BEFORE_CURSOR = /[a-zA-Z_:][a-zA-Z0-9_:]*$/;
  var box = document.getElementById('expr');
  var list = document.getElementById('autocomplete');
  var names = null, loading = null, selected = -1;

  function load() {
    loading = loading || fetch('/api/v1/label/__name__/values').then(function (r) { return r.json(); }).then(function (j) {
      names = j.status === 'success' ? j.data : [];
    }, function () { names = []; });
    return loading;
  }

  function currentWord() {
    var m = WORD_BEFORE_CURSOR.exec(box.value.slice(0, box.selectionStart));
    return m ? { text: m[0], start: box.selectionStart - m[0].length } : null;
  }

  function matches(word) {
    var w = word.toLowerCase(), prefix = [], inner = [];
    for (var i = 0; i < names.length && prefix.length < MAX; i++) {
      var n = names[i].toLowerCase();
      if (n === w) continue;
      if (n.indexOf(w) === 0) prefix.push(names[i]); else if (inner.length < MAX && n.indexOf(w) > 0) inner.push(names[i]);
    }
    return prefix.concat(inner).slice(0, MAX);
  }

  function close() { list.hidden = true; list.textContent = ''; selected = -1; }

  function select(i) {
    var items = list.children;
    if (items.length === 0) return;
    selected = (i + items.length) % items.length;
    for (var k = 0; k < items.length; k++) items[k].classList.toggle('selected', k === selected);
    items[selected].scrollIntoView({ block: 'nearest' });
  }

  function show() {
    var word = currentWord();
    if (!names || !word) { close(); return; }
    var found = matches(word.text);
    list.textContent = '';
    selected = -1;
    found.forEach(function (name) {
      var li = document.createElement('li');
      li.setAttribute('role', 'option');
      li.textContent = name;
      // mousedown, not click: click comes after the textarea's blur, which closes the list.
      li.addEventListener('mousedown', function (ev) { ev.preventDefault(); accept(name); });
      list.appendChild(li);
    });
    list.hidden = found.length === 0;
    // The first suggestion is preselected, as in Prometheus's editor: Enter takes it.
    if (found.length) select(0);
  }

  function accept(name) {
    var word = currentWord();
    if (word) {
      var end = box.selectionStart;
      box.value = box.value.slice(0, word.start) + name + box.value.slice(end);
      box.selectionStart = box.selectionEnd = word.start + name.length;
    }
    close();
    box.focus();
  }

  box.addEventListener('focus', function () { load(); });
  box.addEventListener('input', function () { load().then(show); });
  box.addEventListener('blur', close);
  box.addEventListener('keydown', function (ev) {
    if (list.hidden) return;
    if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') { ev.preventDefault(); select(selected + (ev.key === 'ArrowDown' ? 1 : -1)); return; }
    if (ev.key === 'Escape') { ev.preventDefault(); close(); return; }
    if ((ev.key === 'Enter' && !ev.shiftKey) || ev.key === 'Tab') {
      ev.preventDefault();
      ev.stopImmediatePropagation();
      accept(list.children[selected >= 0 ? selected : 0].textContent);
    }
  });
})();
