/**
 * Prometheus remote-write 1.0 wire format: a snappy (block format) compressed protobuf `WriteRequest`.
 * The schema below is the subset of `prompb/remote.proto` + `types.proto` that 1.0 senders use for float
 * samples; exemplars, native histograms and metadata fields are declared so they decode, and are ignored.
 */
import protobuf from 'protobufjs';
import { InvalidArgumentError } from '../errors.ts';
import { compress, uncompress } from '../codec/snappy.ts';
import type { Label } from '../tsdb/api.ts';
import type { IngestSample } from './sample-sink.ts';

const SCHEMA = `
syntax = "proto3";
package prometheus;
message WriteRequest {
  repeated TimeSeries timeseries = 1;
  repeated MetricMetadata metadata = 3;
}
message MetricMetadata {
  int32 type = 1;
  string metric_family_name = 2;
  string help = 4;
  string unit = 5;
}
message Sample {
  double value = 1;
  int64 timestamp = 2;
}
message Exemplar {
  repeated Label labels = 1;
  double value = 2;
  int64 timestamp = 3;
}
message TimeSeries {
  repeated Label labels = 1;
  repeated Sample samples = 2;
  repeated Exemplar exemplars = 3;
}
message Label {
  string name = 1;
  string value = 2;
}
`;

const WriteRequest = protobuf.parse(SCHEMA, { keepCase: true }).root.lookupType('prometheus.WriteRequest');

interface PbSample { value: number; timestamp: number | { toNumber(): number } }
interface PbSeries { labels: Label[]; samples: PbSample[] }

const LABEL_NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Decodes a remote-write body into samples. Throws InvalidArgumentError (→ 400) on bad input. */
export async function decodeWriteRequest(body: Uint8Array): Promise<IngestSample[]> {
  let raw: Buffer;
  try {
    raw = await uncompress(body);
  } catch (e) {
    throw new InvalidArgumentError('INVALID_ARGUMENT', `snappy: corrupt input`);
  }
  let msg: { timeseries?: PbSeries[] };
  try {
    msg = WriteRequest.decode(raw) as unknown as { timeseries?: PbSeries[] };
  } catch (e) {
    throw new InvalidArgumentError('INVALID_ARGUMENT', `proto: ${(e as Error).message}`);
  }
  const out: IngestSample[] = [];
  for (const ts of msg.timeseries ?? []) {
    const labels = normaliseLabels(ts.labels);
    for (const s of ts.samples) {
      const t = typeof s.timestamp === 'number' ? s.timestamp : s.timestamp.toNumber();
      out.push({ labels, t, v: s.value });
    }
  }
  return out;
}

/** Sorted, validated, empty values dropped; the same label set object is shared by the series' samples. */
function normaliseLabels(input: Label[]): Label[] {
  const labels: Label[] = [];
  for (const l of input) {
    if (!LABEL_NAME_RE.test(l.name)) throw new InvalidArgumentError('INVALID_ARGUMENT', `invalid label name: "${l.name}"`);
    if (l.value !== '') labels.push({ name: l.name, value: l.value });
  }
  labels.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (let i = 1; i < labels.length; i++) {
    if (labels[i].name === labels[i - 1].name) throw new InvalidArgumentError('INVALID_ARGUMENT', `duplicate label with name: ${labels[i].name}`);
  }
  if (!labels.some((l) => l.name === '__name__')) throw new InvalidArgumentError('INVALID_ARGUMENT', 'invalid metric name: missing __name__ label');
  return labels;
}

/** Encodes samples as a compressed WriteRequest, grouping consecutive samples of the same label set. */
export async function encodeWriteRequest(samples: readonly IngestSample[]): Promise<Buffer> {
  const series: { labels: Label[]; samples: { value: number; timestamp: number }[] }[] = [];
  const index = new Map<readonly Label[], number>();
  for (const s of samples) {
    let i = index.get(s.labels);
    if (i === undefined) {
      i = series.length;
      index.set(s.labels, i);
      series.push({ labels: s.labels.map((l) => ({ name: l.name, value: l.value })), samples: [] });
    }
    series[i].samples.push({ value: s.v, timestamp: s.t });
  }
  for (const ts of series) ts.samples.sort((a, b) => a.timestamp - b.timestamp);
  const bytes = WriteRequest.encode({ timeseries: series }).finish();
  return compress(bytes);
}
