/** Errors raised while building a query against a shard (ES `query_shard_exception`). */
import { EngineError, InvalidArgumentError } from '../errors.ts';
import type { CompileContext } from './weight.ts';

export function queryShardError(ctx: CompileContext, reason: string, cause?: { code: string; message: string }): EngineError {
  return new InvalidArgumentError('SEARCH_QUERY_SHARD', reason, { index: ctx.index, cause });
}

/** ES's pretty printer (`"key" : value`, two-space indent) for query echoes in error reasons. */
export function esPretty(v: unknown, indent = ''): string {
  if (Array.isArray(v)) {
    if (v.length === 0) return '[ ]';
    const inner = indent + '  ';
    return '[\n' + v.map((x) => inner + esPretty(x, inner)).join(',\n') + '\n' + indent + ']';
  }
  if (v && typeof v === 'object') {
    const keys = Object.keys(v);
    if (keys.length === 0) return '{ }';
    const inner = indent + '  ';
    return '{\n' + keys.map((k) => `${inner}${JSON.stringify(k)} : ${esPretty((v as Record<string, unknown>)[k], inner)}`).join(',\n') + '\n' + indent + '}';
  }
  return JSON.stringify(v);
}
