import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryKv, packValue, type KvBackend, type KvWrite } from './kv.ts';
import { WorkflowStore } from './store.ts';

const put = (key: string, v: number): KvWrite[] => [{ space: 'contacts', key, value: packValue(v) }];

/** A backend over MemoryKv whose commits become durable a turn later, with failures to inject. */
function backend(fail: { durable?: (n: number) => boolean; readable?: () => boolean }): KvBackend {
  const mem = new MemoryKv();
  let n = 0;
  return {
    get: (s, k) => mem.get(s, k),
    range: (s, a, b, l) => mem.range(s, a, b, l),
    commit: async (w) => {
      const no = ++n;
      await new Promise((r) => setImmediate(r));
      if (fail.durable?.(no)) throw new Error(`commit ${no} not durable`);
      await mem.commit(w);
    },
    applied: () => (fail.readable?.() ? Promise.reject(new Error('not readable')) : Promise.resolve()),
    close: () => mem.close(),
  };
}

const store = (kv: KvBackend): WorkflowStore => new WorkflowStore(kv, { cacheEntries: 16, partition: 0, partitions: 1 });

test('durable commits are acknowledged although the backend could not make them readable (LMDB failed behind the log)', async () => {
  const st = store(backend({ readable: () => true }));
  await assert.doesNotReject(st.commit(put('a', 1)));
  await assert.doesNotReject(st.commit(put('b', 2)));
  await assert.doesNotReject(st.durable);
});

test('after a commit that did not become durable, no later commit is acknowledged', async () => {
  const st = store(backend({ durable: (n) => n === 1 }));
  const first = st.commit(put('a', 1)), second = st.commit(put('b', 2));
  await assert.rejects(first, /commit 1 not durable/);
  await assert.rejects(second, /commit 1 not durable/);
  await assert.rejects(st.durable);
});
