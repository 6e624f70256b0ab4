/**
 * Scroll contexts of one worker: the reader a scroll started on (a point-in-time view: later refreshes do
 * not affect it, and it keeps its segments open) with the shard's complete ordered hit list; pages are
 * fetched from the reader on demand and a context expires after its keep-alive, releasing the reader.
 */
import type { IndexReader } from './index-reader.ts';
import type { SearchRequest } from './search-request.ts';
import type { ShardHit } from './shard-search.ts';
import { filterSource } from './source-filter.ts';

interface ScrollCtx { reader: IndexReader; hits: ShardHit[]; req: SearchRequest; index: string; nowMs: number; timer?: NodeJS.Timeout }

const decoder = new TextDecoder();

export class ScrollStore {
  private readonly ctxs = new Map<string, ScrollCtx>();

  /** Stores a context; it takes over one `acquire` of `ctx.reader`, released when the context goes. */
  put(key: string, ctx: ScrollCtx, keepAliveMs: number): void {
    this.ctxs.set(key, ctx);
    this.touch(key, keepAliveMs);
  }

  private touch(key: string, keepAliveMs: number): void {
    const c = this.ctxs.get(key);
    if (!c) return;
    if (c.timer) clearTimeout(c.timer);
    c.timer = setTimeout(() => this.delete(key), Math.min(keepAliveMs, 2 ** 31 - 1));
    c.timer.unref();
  }

  /** Hits [offset, offset+size) with sources fetched; null when the context is gone. */
  page(key: string, offset: number, size: number, keepAliveMs?: number): ShardHit[] | null {
    const c = this.ctxs.get(key);
    if (!c) return null;
    if (keepAliveMs !== undefined) this.touch(key, keepAliveMs);
    const out: ShardHit[] = [];
    for (const h of c.hits.slice(offset, offset + size)) {
      const stored = c.reader.stored(h.doc);
      out.push({ ...h, id: stored.id, source: filterSource(decoder.decode(stored.source), c.req.source), version: stored.version, seqNo: stored.seqNo, primaryTerm: stored.primaryTerm });
    }
    return out;
  }

  delete(key: string): boolean {
    const c = this.ctxs.get(key);
    if (!c) return false;
    if (c.timer) clearTimeout(c.timer);
    c.reader.release();
    return this.ctxs.delete(key);
  }
}
