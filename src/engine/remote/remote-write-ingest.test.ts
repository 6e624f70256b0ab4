/**
 * The receiver's path into the sink, with a recording sink: one columnar append per request, by series id
 * in the receiver's series table, nothing appended for a refused request, and the columns free again on return.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RemoteWriteIngest } from './remote-write-ingest.ts';
import type { SampleSink } from '../scrape/sample-sink.ts';
import type { SampleColumns } from '../scrape/sample-columns.ts';
import { EngineError } from '../errors.ts';
import { series, writeRequest } from '../../../test/support/proto-bytes.ts';

/** What the sink resolves with: the ingest hands it back as it is. */
const APPENDED = { outOfOrder: 0, duplicate: 0, outOfBounds: 0 };

function recordingSink() {
  const calls: { labels: string[]; sids: number[]; ts: number[]; vs: number[]; tableSize: number }[] = [];
  const sink: SampleSink = {
    append: () => { throw new Error('the columnar path is expected'); },
    appendColumns(c: SampleColumns) {
      const labels: string[] = [];
      for (let i = 0; i < c.n; i++) labels.push(c.labels(i).map((x) => `${x.name}=${x.value}`).join(','));
      calls.push({ labels, sids: [...c.sids.subarray(0, c.n)], ts: [...c.ts.subarray(0, c.n)], vs: [...c.vs.subarray(0, c.n)], tableSize: c.table.size });
      return Promise.resolve(APPENDED);
    },
  };
  return { sink, calls };
}

test('one append per request, in columns, with one series id per series', async () => {
  const { sink, calls } = recordingSink();
  const ingest = new RemoteWriteIngest(sink);
  const a = series([['__name__', 'a']], [[1, 10], [2, 20]]), b = series([['b', 'x'], ['__name__', 'b']], [[3, 10]]);
  assert.equal(await ingest.ingest(writeRequest(a, b), 0), APPENDED);
  assert.equal(await ingest.ingest(writeRequest(b, a), 0), APPENDED);
  assert.equal(calls.length, 2);
  assert.deepEqual(calls[0], { labels: ['__name__=a', '__name__=a', '__name__=b,b=x'], sids: [0, 0, 1], ts: [10, 20, 10], vs: [1, 2, 3], tableSize: 2 });
  assert.deepEqual(calls[1].sids, [1, 0, 0]);
  assert.equal(calls[1].tableSize, 2, 'the second request hit the cache for both series');
  assert.equal(ingest.cachedSeries, 2);
});

test('a refused request appends nothing, and the next one is ingested whole', async () => {
  const { sink, calls } = recordingSink();
  const ingest = new RemoteWriteIngest(sink);
  const good = series([['__name__', 'g']], [[1, 10]]);
  assert.throws(() => ingest.ingest(writeRequest(good, series([['__name__', 'd'], ['a', '1'], ['a', '2']], [[1, 10]])), 0),
    (e: unknown) => e instanceof EngineError && e.code === 'TSDB_INVALID_SAMPLE');
  assert.throws(() => ingest.ingest(Uint8Array.from([...writeRequest(good), 0x0a, 0x05]), 0), /unexpected EOF/);
  assert.equal(calls.length, 0);
  assert.equal(ingest.ingest(writeRequest(series([['__name__', 'e']], [])), 0), null, 'no samples: no append');
  await ingest.ingest(writeRequest(good, series([['__name__', 'h']], [[5, 50]])), 0);
  assert.deepEqual(calls.map((c) => c.labels), [['__name__=g', '__name__=h']]);
});
