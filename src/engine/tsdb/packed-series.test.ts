import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mergeSelected, mergeSelections, mergeSeries, packSelect, SelectedSeries, unpackSelect } from './packed-series.ts';
import type { FetchedSeries, Labels } from './api.ts';

const lbl = (o: Record<string, string>): Labels => Object.keys(o).sort().map((name) => ({ name, value: o[name] }));
const ser = (o: Record<string, string>, t: number[], v: number[]): FetchedSeries => ({ labels: lbl(o), t: Float64Array.from(t), v: Float64Array.from(v) });
const plain = (list: (FetchedSeries | SelectedSeries)[]) => list.map((x) => {
  const s = x instanceof SelectedSeries ? x.samples() : x;
  return { labels: s.labels, t: [...s.t], v: [...s.v] };
});

test('packSelect interns label strings and round-trips series (stale NaN bits kept)', () => {
  // The stale marker is a signalling NaN: build it from bytes (a JS number round trip may quiet it).
  const v0 = new Float64Array(new Uint32Array([0, 0x3ff00000, 0x00000002, 0x7ff00000]).buffer);
  const list = [{ labels: lbl({ __name__: 'up', job: 'a' }), t: Float64Array.from([1, 2]), v: v0 }, ser({ __name__: 'up', job: 'b' }, [3], [5])];
  const p = packSelect(list, true);
  assert.deepEqual(p.symbols, ['__name__', 'up', 'job', 'a', 'b']);
  const back = unpackSelect(p);
  assert.deepEqual(plain(back), plain(list));
  assert.deepEqual([...new Uint32Array(back[0].v.buffer, back[0].v.byteOffset + 8, 2)], [0x00000002, 0x7ff00000]);
});

test('mergeSelected unites one label set across workers (first worker wins a tie) and sorts', () => {
  const w0 = packSelect([ser({ a: '2' }, [1, 3], [10, 30])], true);
  const w1 = packSelect([ser({ a: '1' }, [5], [50]), ser({ a: '2' }, [2, 3, 4], [20, 99, 40])], true);
  const empty = packSelect([], true);
  assert.deepEqual(plain(mergeSelected([w0, empty, w1])), [
    { labels: lbl({ a: '1' }), t: [5], v: [50] },
    { labels: lbl({ a: '2' }), t: [1, 2, 3, 4], v: [10, 20, 30, 40] },
  ]);
  assert.deepEqual(mergeSelected([empty, empty]), []);
});

test('mergeSelected over three sorted replies equals the keyed merge of the same series unsorted', () => {
  const w = [
    [ser({ a: '1' }, [1], [1]), ser({ a: '3' }, [1, 5], [1, 5]), ser({ a: '5' }, [9], [9])],
    [ser({ a: '2' }, [2], [2]), ser({ a: '3' }, [2, 5], [2, 50])],
    [ser({ a: '0' }, [0], [0]), ser({ a: '3' }, [3, 5, 6], [3, 500, 6]), ser({ a: '6' }, [6], [6])],
  ];
  const sorted = mergeSelected(w.map((l) => packSelect(l, true)));
  assert.deepEqual(plain(sorted), plain(mergeSelected(w.map((l) => packSelect(l, false)))));
  assert.deepEqual(plain(sorted).map((s) => s.labels[0].value), ['0', '1', '2', '3', '5', '6']);
  assert.deepEqual(plain(sorted)[3], { labels: lbl({ a: '3' }), t: [1, 2, 3, 5, 6], v: [1, 2, 3, 5, 6] });
});

test('mergeSelected merges repeats inside one unsorted reply (a worker with several shards)', () => {
  const r = packSelect([ser({ a: 'x' }, [2], [2]), ser({ a: 'x' }, [1], [1])], false);
  assert.deepEqual(plain(mergeSelected([r])), [{ labels: lbl({ a: 'x' }), t: [1, 2], v: [1, 2] }]);
});

test('mergeSeries unites samples of one series fetched for two ranges', () => {
  const out = mergeSeries([[ser({ a: 'x' }, [1, 2], [1, 2])], [ser({ a: 'x' }, [2, 3], [2, 3]), ser({ a: 'y' }, [9], [9])]]);
  assert.deepEqual(plain(out), [{ labels: lbl({ a: 'x' }), t: [1, 2, 3], v: [1, 2, 3] }, { labels: lbl({ a: 'y' }), t: [9], v: [9] }]);
});

test('mergeSelections keeps a series fetched for two ranges as one, the first range winning a tie', () => {
  const a = mergeSelected([packSelect([ser({ a: 'x' }, [1, 2], [1, 2])], true, 0, 10)]);
  const b = mergeSelected([packSelect([ser({ a: 'x' }, [2, 3], [20, 3]), ser({ a: 'y' }, [9], [9])], true, 0, 10)]);
  assert.deepEqual(plain(mergeSelections([a, b])), [{ labels: lbl({ a: 'x' }), t: [1, 2, 3], v: [1, 2, 3] }, { labels: lbl({ a: 'y' }), t: [9], v: [9] }]);
});

test('a reply larger than the packer first reserves round-trips and crosses threads as its own whole buffer', async () => {
  const { outOfBand, packWithViews, transferList, unpackWithViews } = await import('../codec/msgpack.ts');
  // 100 series × 2,000 samples of noise: MBs of chunk bytes, so the packer's buffer grows several times.
  let x = 12345;
  const rnd = (): number => ((x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0) / 2 ** 32;
  const list = Array.from({ length: 100 }, (_, i) => {
    const t = Array.from({ length: 2000 }, (_, k) => 1_000 + k * 15_000 + Math.floor(rnd() * 1000));
    return ser({ __name__: 'm', i: String(i).padStart(3, '0') }, t, t.map(() => rnd() * 1e6));
  });
  const p = packSelect(list, true);
  assert.ok(p.data.length > 1 << 20, `${p.data.length} bytes`);
  assert.equal(p.data.byteOffset, 0);
  assert.equal(p.data.buffer.byteLength, p.data.length, 'the buffer is cut to the bytes sent');
  const msg = packWithViews({ data: outOfBand(p.data) });
  assert.equal(msg.x[0], p.data, 'sent as it is, not copied');
  assert.equal(transferList(msg).length, 2);
  const { port1, port2 } = new MessageChannel();
  const got = await new Promise<{ m: Uint8Array; x: ArrayBufferView[] }>((resolve) => { port2.once('message', resolve); port1.postMessage(msg, transferList(msg)); });
  port1.close();
  assert.equal(p.data.byteLength, 0, 'transferred');
  const back = unpackSelect({ ...p, data: unpackWithViews<{ data: Uint8Array }>(got).data });
  assert.deepEqual(plain(back), plain(list));
});

test('small replies are packed in a buffer the thread reuses and each comes out in a buffer of its own', () => {
  const a = packSelect([ser({ __name__: 'a' }, [1, 2, 3], [1, 2, 3])], true);
  const b = packSelect([ser({ __name__: 'b' }, [4, 5], [40, 50]), ser({ __name__: 'c' }, [6], [60])], true);
  for (const p of [a, b]) assert.equal(p.data.buffer.byteLength, p.data.length, 'a whole buffer of its own');
  assert.notEqual(a.data.buffer, b.data.buffer);
  assert.deepEqual(plain(unpackSelect(a)), [{ labels: lbl({ __name__: 'a' }), t: [1, 2, 3], v: [1, 2, 3] }]);
  assert.deepEqual(plain(unpackSelect(b)), [{ labels: lbl({ __name__: 'b' }), t: [4, 5], v: [40, 50] }, { labels: lbl({ __name__: 'c' }), t: [6], v: [60] }]);
});
