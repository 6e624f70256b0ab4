/**
 * The client keeps a worker's series refs exactly, whether they fit in 31 bits (kept as small integers, see
 * `smallOr` in tsdb-client.ts) or not (a WAL Prometheus wrote may carry any uint64 below 2^53).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TsdbClient, type TsdbTransport } from '../../src/server/prom/tsdb-client.ts';
import type { Labels } from '../../src/engine/tsdb/api.ts';
import { pack, unpack } from '../../src/engine/codec/msgpack.ts';

test('refs above and below 2^31 come back to the worker unchanged', async () => {
  const given = [7, 2 ** 40 + 5, 2 ** 31, 2 ** 31 - 1];
  for (const ref of given) {
    const sent: (Float64Array | undefined)[] = [];
    const transport = {
      size: 1,
      async call(_w: number, _op: string, args: unknown) {
        // Through the encoder, as at the real boundary (the columns are marked for transfer).
        const a = unpack(pack(args)) as { series: string[][]; refs: Float64Array; ts: Float64Array };
        sent.push(a.series.length === 0 ? Float64Array.from(a.refs) : undefined);
        return { added: a.ts.length, outOfOrder: 0, duplicate: 0, outOfBounds: 0, firstError: '', refs: Float64Array.of(ref), epoch: 2 ** 31 + 3 };
      },
    } as unknown as TsdbTransport;
    const client = new TsdbClient(transport);
    const ls: Labels = Object.freeze([{ name: '__name__', value: 'x' }]);
    for (let t = 0; t < 3; t++) await client.append([{ labels: ls, t, v: t }]);
    assert.deepEqual(sent.map((r) => (r ? r[0] : 'labels')), ['labels', ref, ref], `ref ${ref}`);
  }
});
