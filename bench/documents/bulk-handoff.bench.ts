/**
 * CPU per document of the steps of a `_bulk` around the shard workers' indexing, in process: parsing a
 * 2,000-document body (loadtest/documents-scale.ts's documents), encoding its two shard messages, a worker's
 * reply (outcome columns built, encoded, decoded and read), and the response body written as UTF-8 bytes — with
 * the join into one string it replaced, for scale. No server, so the figures hold on a busy machine better than
 * a load test's docs/s.
 *
 *   node --import tsx bench/documents/bulk-handoff.bench.ts [rounds=300 | --quick]
 */
import { parseBulk } from '../../src/engine/documents/bulk-parse.ts';
import { packMessage, unpack } from '../../src/engine/codec/msgpack.ts';
import { ByteWriter } from '../../src/engine/codec/byte-buf.ts';
import { newWriteOutcomes, setResult, type WriteItem, type WriteOutcomes } from '../../src/workers/protocol.ts';
import { logDocument, logVocabulary } from '../../loadtest/support/log-docs.ts';
import { mulberry32 } from '../support/mulberry32.ts';

const ROUNDS = process.argv[2] === '--quick' ? 20 : Number(process.argv[2] ?? 300);
const DOCS = 2000;
const vocab = logVocabulary();
const r = mulberry32(7);
let text = '';
for (let i = 0; i < DOCS; i++) text += `{"index":{"_id":"log-${i}"}}\n${logDocument(vocab, r)}\n`;
const body = Buffer.from(text);
const items = parseBulk(body, { index: 'logs', type: '_doc' });

/** µs of process CPU per document of `step` (one call handles the whole body), after a warm-up. */
function perDoc(step: () => unknown): string {
  for (let i = 0; i < 20; i++) step();
  const c0 = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i++) step();
  const c = process.cpuUsage(c0);
  return ((c.user + c.system) / (ROUNDS * DOCS)).toFixed(3);
}

const shardMessages = (): void => {
  const ops: WriteItem[] = items.map((it) => ({ action: 'index', op: { id: it.id!, source: it.source! } }));
  for (let s = 0; s < 2; s++) packMessage([{ op: 'docs.write', args: { uuid: 'u', shard: s, mv: 1, items: ops.slice(s * DOCS / 2, (s + 1) * DOCS / 2) } }]);
};

const reply = (): number => {
  let sum = 0;
  for (let s = 0; s < 2; s++) {
    const o = newWriteOutcomes(DOCS / 2);
    for (let i = 0; i < DOCS / 2; i++) setResult(o, i, { result: 'created', version: 1, seqNo: 5000 + i, primaryTerm: 1 });
    const back = unpack<{ ok: WriteOutcomes }[]>(packMessage([{ ok: o }]))[0].ok;
    for (let i = 0; i < DOCS / 2; i++) sum += back.seqNo[i];
  }
  return sum;
};

const head = '"_index":"logs","_type":"_doc","_id":', shards = '"_shards":{"total":1,"successful":1,"failed":0}';
const item = (i: number): string =>
  `{"index":{${head}${JSON.stringify(items[i].id)},"_version":1,"result":"created",${shards},"_seq_no":${5000 + i},"_primary_term":1,"status":201}}`;
const responseBytes = (): Uint8Array => {
  const w = new ByteWriter(DOCS * 256 + 64);
  w.utf8('{"took":5,"errors":false,"items":[');
  for (let i = 0; i < DOCS; i++) { if (i > 0) w.u8(0x2c); w.utf8(item(i)); }
  w.utf8(']}');
  return w.buf.subarray(0, w.len);
};
const responseJoined = (): Buffer => {
  const parts = new Array<string>(DOCS);
  for (let i = 0; i < DOCS; i++) parts[i] = item(i);
  return Buffer.from(`{"took":5,"errors":false,"items":[${parts.join(',')}]}`);
};

console.log(`µs per document (${ROUNDS} rounds of a ${DOCS}-document bulk):`);
console.log(`  parseBulk                         ${perDoc(() => parseBulk(body, { index: 'logs', type: '_doc' }))}`);
console.log(`  write items + two shard messages  ${perDoc(shardMessages)}`);
console.log(`  reply columns, packed and read    ${perDoc(reply)}`);
console.log(`  response written as bytes         ${perDoc(responseBytes)}`);
console.log(`  response joined, then UTF-8       ${perDoc(responseJoined)}  (the replaced way, for scale)`);
