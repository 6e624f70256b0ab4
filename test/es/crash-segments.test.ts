/**
 * Crash safety of the segment engine: in several rounds on one data directory, clients index, update (with
 * versions) and delete documents while others keep refreshing, flushing and force-merging, with a 1 MB indexing
 * buffer so in-memory segments are written out and merged all the time; the server is killed with SIGKILL at a
 * seeded random moment of each round. After each restart every acknowledged operation holds: a document is
 * present with the content and version of its last acknowledged write (or of a later write that was in flight
 * when the server died), absent when its last acknowledged operation was a delete; `_count`, `_cat/count` and
 * `_cat/indices` agree with what the GETs find; no partial segment is ever opened (the restart succeeds).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type TestServer } from '../support/server.ts';
import { mulberry32 } from '../../bench/support/mulberry32.ts';

const IDS = 3_000;
const ROUNDS = 4;

interface IdState { version: number; content: string | null }

/** Per id: the last acknowledged state, and states written by requests that had no answer when the server died. */
class Model {
  readonly acked = new Map<string, IdState>();
  readonly inFlight = new Map<string, IdState[]>();
  pending(id: string, st: IdState): void { let l = this.inFlight.get(id); if (!l) { l = []; this.inFlight.set(id, l); } l.push(st); }
}

const content = (id: number, round: number, v: number): string => JSON.stringify({ n: id, round, v, title: `document ${id} in round ${round}`, body: `words w${id % 97} w${(id * 7) % 89} common` });

async function es(s: TestServer, method: string, path: string, body?: string): Promise<{ status: number; json: any }> {
  const r = await fetch(`${s.esUrl}${path}`, { method, headers: { 'content-type': body?.includes('\n') ? 'application/x-ndjson' : 'application/json' }, body });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : null };
}

test('kill -9 during bulk, refresh, flush and merge loses no acknowledged operation', { timeout: 240_000 }, async () => {
  let s = await startServer({ services: ['documents'], workers: 2, args: ['--indices.memory.index_buffer_size', '1MB'] });
  const rnd = mulberry32(2026);
  const model = new Model();
  try {
    assert.equal((await es(s, 'PUT', '/crash', JSON.stringify({ settings: { number_of_shards: 2, refresh_interval: '200ms' } }))).status, 200);
    for (let round = 1; round <= ROUNDS; round++) {
      let dead = false;
      const writer = async (): Promise<void> => {
        while (!dead) {
          let body = '';
          const ops: { id: string; st: IdState; kind: string }[] = [];
          for (let k = 0; k < 100; k++) {
            const n = Math.floor(rnd() * IDS), id = String(n);
            const cur = model.acked.get(id)?.version ?? 0;
            if (rnd() < 0.15) { body += `{"delete":{"_id":"${id}"}}\n`; ops.push({ id, st: { version: -1, content: null }, kind: 'delete' }); continue; }
            const c = content(n, round, cur + 1);
            body += `{"index":{"_id":"${id}"}}\n${c}\n`;
            ops.push({ id, st: { version: -1, content: c }, kind: 'index' });
          }
          for (const o of ops) model.pending(o.id, o.st);
          let items: any[];
          try {
            const r = await es(s, 'POST', '/crash/_doc/_bulk', body);
            items = r.json.items;
          } catch {
            return; // died under this request: its operations stay "in flight"
          }
          ops.forEach((o, i) => {
            const it = items[i][o.kind];
            if (it.status >= 300 && !(o.kind === 'delete' && it.status === 404)) return;
            o.st.version = it._version;
            // Concurrent bulks answer in any order; versions say which write the server applied last.
            if (it._version >= (model.acked.get(o.id)?.version ?? -1)) model.acked.set(o.id, { version: it._version, content: o.st.content });
            model.inFlight.set(o.id, (model.inFlight.get(o.id) ?? []).filter((x) => x !== o.st));
          });
        }
      };
      const maintainer = async (path: string, everyMs: number): Promise<void> => {
        while (!dead) {
          await es(s, 'POST', path).catch(() => undefined);
          await new Promise((r) => setTimeout(r, everyMs));
        }
      };
      const work = [writer(), writer(), maintainer('/crash/_refresh', 50), maintainer('/crash/_flush', 300), maintainer('/crash/_forcemerge?max_num_segments=1&flush=false', 400)];
      await new Promise((r) => setTimeout(r, 1500 + Math.floor(rnd() * 2500)));
      dead = true;
      await s.kill9();
      await Promise.all(work);
      s = await s.restart();
      await verify(s, model);
    }
  } finally {
    await s.destroy();
  }
});

async function verify(s: TestServer, model: Model): Promise<void> {
  await es(s, 'POST', '/crash/_refresh');
  let found = 0;
  const ids = Array.from({ length: IDS }, (_, i) => String(i));
  let next = 0;
  const check = async (): Promise<void> => {
    while (next < ids.length) {
      const id = ids[next++];
      const r = await es(s, 'GET', `/crash/_doc/${id}`);
      assert.ok(r.status === 200 || r.status === 404, `GET ${id}: ${r.status} ${JSON.stringify(r.json)}`);
      const acked = model.acked.get(id);
      const inFlight = model.inFlight.get(id) ?? [];
      if (r.json.found) {
        found++;
        const got = JSON.stringify(r.json._source);
        const ok = (acked && acked.content !== null && r.json._version === acked.version && got === acked.content)
          || inFlight.some((x) => x.content !== null && got === x.content);
        assert.ok(ok, `doc ${id}: version ${r.json._version} ${got} is neither its last acknowledged write ${JSON.stringify(acked)} nor one in flight`);
        // What is there now is what the next round builds on.
        model.acked.set(id, { version: r.json._version, content: got });
      } else {
        const ok = !acked || acked.content === null || inFlight.some((x) => x.content === null);
        assert.ok(ok, `doc ${id} is missing; its last acknowledged write was ${JSON.stringify(acked)}`);
        // Delete tombstones do not survive a restart: the id's versions start over.
        model.acked.set(id, { version: 0, content: null });
      }
      model.inFlight.delete(id);
    }
  };
  await Promise.all(Array.from({ length: 16 }, check));
  assert.equal((await es(s, 'GET', '/crash/_count')).json.count, found, '_count equals the documents found');
  const cat = await (await fetch(`${s.esUrl}/_cat/indices/crash?h=docs.count`)).text();
  assert.equal(Number(cat.trim()), found, '_cat/indices docs.count');
  const catCount = await (await fetch(`${s.esUrl}/_cat/count/crash?h=count`)).text();
  assert.equal(Number(catCount.trim()), found, '_cat/count');
}
