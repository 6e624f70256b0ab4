/**
 * Prometheus remote-write 1.0 wire format: a snappy (block format) compressed protobuf `WriteRequest`.
 * The schema below is the subset of `prompb/remote.proto` + `types.proto` that 1.0 senders use for float
 * samples; exemplars, native histograms and metadata fields are declared so they decode, and are ignored.
 * Encoding uses protobufjs (the sender's path); decoding uses the hand-written `write-request-reader.ts`.
 */
import { createRequire } from 'node:module';
import type { Type } from 'protobufjs';
import { InvalidArgumentError } from '../errors.ts';
import { compress, uncompress } from '../codec/snappy.ts';
import type { Label } from '../tsdb/api.ts';
import type { IngestSample } from '../scrape/sample-sink.ts';
import { readWriteRequest, WriteRequestView } from './write-request-reader.ts';
import { RemoteWriteSeries } from './remote-write-series.ts';
import { SampleColumns } from '../scrape/sample-columns.ts';

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

let writeRequest: Type | null = null;

/**
 * The WriteRequest type, built on the first encode: protobufjs (46 modules) and the schema's parse cost the main
 * thread ~40 ms at every start, and only a node that sends remote writes encodes.
 */
function writeRequestType(): Type {
  if (writeRequest) return writeRequest;
  const protobuf = createRequire(import.meta.url)('protobufjs') as typeof import('protobufjs');
  writeRequest = protobuf.parse(SCHEMA, { keepCase: true }).root.lookupType('prometheus.WriteRequest');
  return writeRequest;
}

/**
 * Decodes a remote-write body into samples, for cold paths (tests, tools); the receiver ingests through
 * `RemoteWriteIngest` instead, without an object per sample. Same reader and the same label-set rules:
 * throws InvalidArgumentError for a body that is not snappy or not a WriteRequest.
 */
export async function decodeWriteRequest(body: Uint8Array): Promise<IngestSample[]> {
  let raw: Buffer;
  try {
    raw = await uncompress(body);
  } catch {
    throw new InvalidArgumentError('INVALID_ARGUMENT', 'snappy: corrupt input');
  }
  const view = new WriteRequestView();
  readWriteRequest(raw, view);
  const series = new RemoteWriteSeries();
  const cols = new SampleColumns(series.table);
  for (let k = 0; k < view.sampleCount; k++) cols.push(series.resolve(view, view.sampleSeries[k], 0), view.ts[k], view.vs[k]);
  return cols.toSamples();
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
  const bytes = writeRequestType().encode({ timeseries: series }).finish();
  return compress(bytes);
}
