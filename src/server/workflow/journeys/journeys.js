// The journey page (served by src/server/workflow/journey-routes.ts): workflows of a business, one workflow
// drawn as its graph with live per-element statistics, a contact's journey over it, and an editor whose
// channel picker fills the live-stream properties. Plain DOM, no dependencies; every call goes to the
// workflow API on this same origin.
'use strict';

const $ = (id) => document.getElementById(id);
const state = { businessId: null, channels: [], workflows: [], current: null, journey: null, draft: null, timer: null };
const NODE_W = 200, COL_W = 260, ROW_H = 120;

async function api(method, path, body) {
  const r = await fetch(path, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const j = await r.json();
  if (!j.success) { const e = new Error(j.error); e.data = j.data; throw e; }
  return j.data;
}

function showError(msg) { const e = $('error'); e.textContent = msg || ''; e.hidden = !msg; }
function el(tag, cls, text) { const n = document.createElement(tag); if (cls) n.className = cls; if (text !== undefined) n.textContent = text; return n; }
const parseList = (v) => (Array.isArray(v) ? v : JSON.parse(v || '[]'));
const parseExt = (v) => (v === null || v === undefined ? null : typeof v === 'string' ? JSON.parse(v) : v);
const fmtTime = (ms) => (ms === null || ms === undefined ? '—' : new Date(ms).toISOString().slice(0, 16).replace('T', ' '));

// ── business: workflows and channels ──

async function loadBusiness(id) {
  state.businessId = id;
  showError('');
  const [list, channels] = await Promise.all([api('GET', `/workflow/manage?businessId=${id}&size=100`), api('GET', `/livestream/channels/businessId/${id}`)]);
  state.workflows = list.items;
  state.channels = channels;
  renderWorkflows();
  renderChannels();
}

function renderWorkflows() {
  const ul = $('workflows');
  ul.replaceChildren();
  for (const wf of state.workflows) {
    const li = el('li', state.current && state.current.id === wf.id ? 'selected' : '', `#${wf.id} ${wf.title}`);
    li.dataset.id = String(wf.id);
    li.title = `${wf.enable ? 'enabled' : 'disabled'}, status ${wf.status}, entered ${wf.statistics.entered}`;
    li.addEventListener('click', () => selectWorkflow(wf.id).catch((e) => showError(e.message)));
    ul.append(li);
  }
}

function renderChannels() {
  const tb = $('channels').querySelector('tbody');
  tb.replaceChildren();
  for (const c of state.channels) {
    const tr = el('tr');
    tr.append(el('td', '', `${c.name} (${c.channelId})`), el('td', '', c.liveStatus), el('td', '', fmtTime(c.startTime)));
    tb.append(tr);
  }
  for (const sel of [$('add-channel')]) {
    sel.replaceChildren(...state.channels.map((c) => {
      const o = el('option', '', `${c.name} (${c.channelId}) — ${c.liveStatus}, starts ${fmtTime(c.startTime)}`);
      o.value = c.channelId;
      return o;
    }));
  }
}

// ── one workflow: graph and statistics ──

async function selectWorkflow(id) {
  state.current = await api('GET', `/workflow/manage/${id}`);
  state.journey = null;
  $('journey').hidden = true;
  $('editor').hidden = true;
  $('workflow-head').hidden = false;
  renderWorkflows();
  renderGraph();
  if (state.timer) clearInterval(state.timer);
  state.timer = setInterval(() => refreshStats().catch(() => undefined), 1000);
}

async function refreshStats() {
  if (!state.current) return;
  state.current.statistics = await api('GET', `/workflow/manage/${state.current.id}/statistics`);
  renderStats();
}

/** Columns by depth from the entry events (longest path), rows in element order. */
function layout(elements) {
  const source = new Map();
  for (const e of elements) for (const p of e.outs) source.set(p, e.displayId);
  const depth = new Map();
  const visit = (e, seen) => {
    if (depth.has(e.displayId)) return depth.get(e.displayId);
    if (seen.has(e.displayId)) return 0; // a cycle (drafts may have one): stop
    seen.add(e.displayId);
    let d = 0;
    for (const p of e.ins) {
      const s = elements.find((x) => x.displayId === source.get(p));
      if (s) d = Math.max(d, visit(s, seen) + 1);
    }
    depth.set(e.displayId, d);
    return d;
  };
  for (const e of elements) visit(e, new Set());
  const rows = new Map();
  const pos = new Map();
  for (const e of elements) {
    const d = depth.get(e.displayId);
    const r = rows.get(d) ?? 0;
    rows.set(d, r + 1);
    pos.set(e.displayId, { x: 10 + d * COL_W, y: 10 + r * ROW_H });
  }
  return { pos, source };
}

function describe(e) {
  const props = e.properties.map((p) => `${p.name} ${p.operation} ${p.value}`);
  if (e.type !== 'Action') return props.filter((p) => !p.startsWith('event in')).join('; ');
  const x = e.ext || {};
  const v = x.actionValue === undefined ? '' : ` ${typeof x.actionValue === 'string' ? x.actionValue : JSON.stringify(x.actionValue)}`;
  const wait = x.countdown ? ` ${Math.round((x.countdownValue ?? 0) / 60000)} min before ${x.countdown.replace('livestream_rule_starttime_', '')}` : x.delay ? ` after ${x.delay} ms` : '';
  return `${x.action || 'noop'}${v}${wait}`;
}

function renderGraph() {
  const wf = state.current;
  const elements = wf.workflowElements.map((e) => ({ ...e, ins: parseList(e.incomings), outs: parseList(e.outgoings), ext: parseExt(e.extensions) }));
  const { pos } = layout(elements);
  const nodes = $('nodes');
  nodes.replaceChildren();
  let w = 0, h = 0;
  for (const e of elements) {
    const p = pos.get(e.displayId);
    const n = el('div', `node ${e.type}`);
    n.id = `node-${e.displayId}`;
    n.dataset.id = e.displayId;
    n.style.left = `${p.x}px`;
    n.style.top = `${p.y}px`;
    n.append(el('div', 'title', `${e.type} · ${e.displayId}`), el('div', 'what', describe(e)), el('div', 'stats'), el('div', 'steps'));
    nodes.append(n);
    w = Math.max(w, p.x + NODE_W + 20);
    h = Math.max(h, p.y + ROW_H);
  }
  const svg = $('edges');
  svg.setAttribute('width', String(w));
  svg.setAttribute('height', String(h));
  $('graph').style.height = `${h}px`;
  svg.replaceChildren();
  const NS = 'http://www.w3.org/2000/svg';
  for (const s of elements) {
    const branches = s.type === 'Rule' ? { yes: s.ext?.yes ?? s.outs[0], no: s.ext?.no ?? s.outs[1] } : {};
    for (const path of s.outs) {
      for (const t of elements.filter((x) => x.ins.includes(path))) {
        const a = pos.get(s.displayId), b = pos.get(t.displayId);
        const line = document.createElementNS(NS, 'line');
        line.setAttribute('x1', String(a.x + NODE_W)); line.setAttribute('y1', String(a.y + 20));
        line.setAttribute('x2', String(b.x)); line.setAttribute('y2', String(b.y + 20));
        line.setAttribute('stroke', '#888'); line.setAttribute('stroke-width', '1.5');
        svg.append(line);
        const label = path === branches.yes ? 'yes' : path === branches.no ? 'no' : '';
        if (label) {
          const tx = document.createElementNS(NS, 'text');
          tx.setAttribute('x', String((a.x + NODE_W + b.x) / 2)); tx.setAttribute('y', String((a.y + b.y) / 2 + 16));
          tx.textContent = label;
          svg.append(tx);
        }
      }
    }
  }
  $('wf-title').textContent = `#${wf.id} ${wf.title}`;
  renderStats();
  renderJourney();
}

const STAT_KEYS = ['arrived', 'yes', 'no', 'executed', 'waiting', 'held', 'skipped', 'expired', 'failed'];

function renderStats() {
  const s = state.current.statistics;
  $('wf-summary').textContent = `${state.current.enable ? 'enabled' : 'disabled'} · status ${state.current.status} · entered ${s.entered} · active ${s.active} · completed ${s.completed} · failed ${s.failed} · cancelled ${s.cancelled}`;
  for (const [id, st] of Object.entries(s.elements)) {
    const box = document.getElementById(`node-${id}`)?.querySelector('.stats');
    if (!box) continue;
    box.replaceChildren(...STAT_KEYS.filter((k) => st[k] !== undefined).map((k) => {
      const span = el('span', `stat stat-${k}`, `${k} `);
      span.append(el('b', '', String(st[k])));
      return span;
    }));
  }
}

// ── a contact's journey over the graph ──

async function showJourney(contactId) {
  state.journey = await api('GET', `/workflow/manage/${state.current.id}/contacts/${encodeURIComponent(contactId)}/journey`);
  renderJourney();
}

function renderJourney() {
  for (const n of document.querySelectorAll('.node')) { n.classList.remove('visited'); n.querySelector('.steps').textContent = ''; }
  const box = $('journey');
  const j = state.journey;
  if (!j) { box.hidden = true; return; }
  box.hidden = false;
  box.replaceChildren(el('h3', '', `Journey of ${j.contactId}: ${j.runs.length} run(s), ${j.pendingTimers.length} pending timer(s)`));
  const last = j.runs[j.runs.length - 1];
  for (const run of j.runs) {
    const p = el('p', 'run', `run ${run.entryNo} (${run.id}) ${run.status}: ` + run.steps.map((s) => `${s.elementDisplayId} ${s.outcome}${s.reason ? ` (${s.reason})` : ''}`).join(' → '));
    box.append(p);
  }
  for (const t of j.pendingTimers) box.append(el('p', 'timer', `timer ${t.id} at ${t.elementDisplayId}: ${t.kind}, fires ${fmtTime(t.fireAt)} (${t.state})`));
  if (!last) return;
  // The latest run over the graph: the elements it reached, with their outcomes.
  for (const s of last.steps) {
    const n = document.getElementById(`node-${s.elementDisplayId}`);
    if (!n) continue;
    n.classList.add('visited');
    const steps = n.querySelector('.steps');
    steps.textContent = (steps.textContent ? `${steps.textContent}, ` : '') + s.outcome;
  }
}

// ── editor ──

function startEditor(wf) {
  state.draft = wf ? {
    id: wf.id, title: wf.title, oneOff: wf.oneOff, enable: wf.enable,
    elements: wf.workflowElements.map((e) => ({ displayId: e.displayId, type: e.type, metaString: e.metaString, properties: e.properties.map(({ name, operation, value }) => ({ name, operation, value })), incomings: parseList(e.incomings), outgoings: parseList(e.outgoings), extensions: parseExt(e.extensions) })),
  } : { id: null, title: 'New journey', oneOff: false, enable: true, elements: [] };
  $('ed-title').value = state.draft.title;
  $('ed-enable').checked = state.draft.enable;
  $('ed-oneoff').checked = state.draft.oneOff;
  $('editor').hidden = false;
  $('save-status').textContent = '';
  renderDraft({});
}

function renderDraft(errors) {
  const ol = $('ed-elements');
  ol.replaceChildren();
  state.draft.elements.forEach((e, i) => {
    const li = el('li', '', `${e.type} ${e.displayId}: ${describe({ ...e, ext: e.extensions })}`);
    li.dataset.id = e.displayId;
    if (errors[i]) li.append(el('span', 'el-error', errors[i]));
    const rm = el('button', 'remove', '✕');
    rm.type = 'button';
    rm.title = 'remove';
    rm.addEventListener('click', () => { removeElement(e.displayId); renderDraft({}); });
    li.append(' ', rm);
    ol.append(li);
  });
  const after = $('add-after');
  const opts = [el('option', '', '(start)')];
  opts[0].value = '';
  for (const e of state.draft.elements) {
    if (e.type === 'Rule') for (const b of ['yes', 'no']) { const o = el('option', '', `${e.displayId} (${b})`); o.value = `${e.displayId}|${b}`; opts.push(o); }
    else { const o = el('option', '', e.displayId); o.value = e.displayId; opts.push(o); }
  }
  after.replaceChildren(...opts);
  if (opts.length > 1) after.value = opts[opts.length - 1].value;
  showTypeFields();
}

function removeElement(id) {
  const gone = state.draft.elements.find((e) => e.displayId === id);
  state.draft.elements = state.draft.elements.filter((e) => e !== gone);
  for (const e of state.draft.elements) {
    e.outgoings = e.outgoings.filter((p) => !gone.incomings.includes(p));
    e.incomings = e.incomings.filter((p) => !gone.outgoings.includes(p));
  }
}

function showTypeFields() {
  const type = $('add-type').value;
  for (const row of document.querySelectorAll('#ed-add [data-for]')) row.hidden = row.dataset.for !== type;
}

function nextId(prefix) {
  let n = 1;
  const taken = new Set(state.draft.elements.map((e) => e.displayId).concat(state.draft.elements.flatMap((e) => e.outgoings)));
  while (taken.has(`${prefix}${n}`)) n++;
  return `${prefix}${n}`;
}

/** Builds the element from the form; the channel picker fills the live-stream names. */
function addElement() {
  const type = $('add-type').value;
  const ch = $('add-channel').value;
  const e = { displayId: nextId('block-'), type, metaString: '', properties: [], incomings: [], outgoings: [], extensions: null };
  if (type === 'Event') {
    e.properties = [{ name: 'event', operation: 'in', value: 'livestream' }, { name: 'eventValue', operation: 'in', value: `livestream-${$('add-event').value}-${ch}` }];
  } else if (type === 'Rule') {
    e.properties = [{ name: `livestream_rule_${$('add-property').value}_${ch}`, operation: $('add-operation').value, value: $('add-value').value }];
  } else {
    const action = $('add-action').value;
    const raw = $('add-action-value').value;
    const x = { action };
    if (action === 'countdown') {
      x.countdown = `livestream_rule_starttime_${ch}`;
      x.countdownValue = Math.round(Number($('add-countdown').value || '0') * 60000);
    } else if (raw !== '') {
      x.actionValue = action === 'message' ? { channel: 'sms', content: raw } : /^[[{]/.test(raw) ? JSON.parse(raw) : raw;
    }
    if ($('add-delay').value !== '') x.delay = Number($('add-delay').value);
    e.extensions = x;
  }
  const after = $('add-after').value;
  if (after) {
    const [pid, branch] = after.split('|');
    const parent = state.draft.elements.find((x) => x.displayId === pid);
    const path = nextId('path-');
    parent.outgoings.push(path);
    if (branch) parent.extensions = { ...(parent.extensions || {}), [branch]: path };
    e.incomings = [path];
  }
  state.draft.elements.push(e);
  renderDraft({});
}

async function saveDraft() {
  const d = state.draft;
  d.title = $('ed-title').value;
  d.enable = $('ed-enable').checked;
  d.oneOff = $('ed-oneoff').checked;
  const body = {
    version: 1, businessId: state.businessId, platId: null, type: 1, title: d.title, description: null, target: '{"type":"all"}',
    oneOff: d.oneOff, enable: d.enable, status: d.enable ? 1 : 0, createdBy: 'journeys', properties: null,
    workflowElements: d.elements.map((e) => ({
      displayId: e.displayId, type: e.type, metaString: e.metaString || '', properties: e.properties,
      incomings: JSON.stringify(e.incomings), outgoings: JSON.stringify(e.outgoings),
      extensions: e.extensions === null ? null : JSON.stringify(e.extensions),
    })),
  };
  if (d.id !== null) body.id = d.id;
  try {
    const saved = await api('POST', '/workflow/manage', body);
    $('save-status').textContent = `saved #${saved.id}${saved.warnings?.length ? ` — ${saved.warnings.join('; ')}` : ''}`;
    await loadBusiness(state.businessId);
    await selectWorkflow(saved.id);
  } catch (err) {
    // Validation errors name the element (`workflowElements[i]…`): shown beside it.
    const m = /^workflowElements\[(\d+)\]/.exec(err.data?.path || '') || /workflowElements\[(\d+)\]/.exec(err.message);
    if (m) renderDraft({ [Number(m[1])]: err.message }); else showError(err.message);
    $('save-status').textContent = 'not saved';
  }
}

// ── wiring ──

$('business-form').addEventListener('submit', (ev) => { ev.preventDefault(); loadBusiness(Number($('business').value)).catch((e) => showError(e.message)); });
$('contact-form').addEventListener('submit', (ev) => { ev.preventDefault(); showJourney($('contact').value).catch((e) => showError(e.message)); });
$('clear-journey').addEventListener('click', () => { state.journey = null; renderJourney(); });
$('new-workflow').addEventListener('click', () => { if (state.businessId) startEditor(null); else showError('load a business first'); });
$('edit-workflow').addEventListener('click', () => startEditor(state.current));
$('cancel-edit').addEventListener('click', () => { $('editor').hidden = true; });
$('add-type').addEventListener('change', showTypeFields);
$('add-element').addEventListener('click', () => { try { addElement(); } catch (e) { showError(e.message); } });
$('save-workflow').addEventListener('click', () => { saveDraft(); });
const q = new URLSearchParams(location.search);
if (q.get('businessId')) {
  $('business').value = q.get('businessId');
  loadBusiness(Number(q.get('businessId'))).then(() => (q.get('workflow') ? selectWorkflow(Number(q.get('workflow'))) : undefined)).catch((e) => showError(e.message));
}
