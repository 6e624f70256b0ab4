/**
 * An ingest processor's failure as Elasticsearch 6.8 reports it. CompoundProcessor wraps the processor's
 * exception twice, `new ElasticsearchException(new IllegalArgumentException(e))`, and puts the processor's type
 * and tag in the outer one's `header`, so the wire shows a 500 `exception` whose reason is the Java `toString()`
 * of the middle one, caused by an `illegal_argument_exception`, caused by the processor's own error:
 *
 *   exception: "java.lang.IllegalArgumentException: java.lang.IllegalArgumentException: field [a] not present …"
 *     └ illegal_argument_exception: "java.lang.IllegalArgumentException: field [a] not present …"
 *         └ illegal_argument_exception: "field [a] not present …"
 *
 * (seen in ES 6.x responses to index and bulk requests, e.g. elastic/elasticsearch#37909). The engine throws
 * DOC_INGEST_PROCESSOR with the processor's error as `cause`; the Java class names are added here, at the wire.
 */
import type { ErrorLike } from './errors.ts';

/** Java classes of the error types processors throw, for the `toString()` in the reasons. */
const JAVA_CLASS: Record<string, string> = {
  DOC_INGEST_FAIL: 'org.elasticsearch.ingest.common.FailProcessorException',
  DOC_ILLEGAL_STATE: 'java.lang.IllegalStateException',
  DOC_NUMBER_FORMAT: 'java.lang.NumberFormatException',
  DOC_PARSE: 'org.elasticsearch.ElasticsearchParseException',
  DOC_SCRIPT_FAILED: 'org.elasticsearch.script.ScriptException',
};
const DEFAULT_CLASS = 'java.lang.IllegalArgumentException';

/** The three-level chain for a DOC_INGEST_PROCESSOR error; any other error unchanged. */
export function expandProcessorFailure(e: ErrorLike): ErrorLike {
  if (e.code !== 'DOC_INGEST_PROCESSOR' || e.details?.cause === undefined) return e;
  const cause = e.details.cause as ErrorLike;
  const inner = `${JAVA_CLASS[cause.code] ?? DEFAULT_CLASS}: ${cause.message}`;
  const { cause: _, ...rest } = e.details;
  const middle: ErrorLike = { code: 'DOC_INGEST_CAUSE', message: inner, details: { cause } };
  return { code: e.code, message: `java.lang.IllegalArgumentException: ${inner}`, details: { ...rest, cause: middle } };
}
