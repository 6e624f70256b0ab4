/**
 * Scroll contexts of one worker: the reader a scroll started on (a point-in-time view: later refreshes do
 * not affect it, and it keeps its segments open) with the shard's complete ordered hit list; pages are
 * fetched from the reader on demand and a context expires after its keep-alive, releasing the reader.
 */
import type { IndexReader } from './index-reader.ts';
import type { SearchRequest } from './search-request.ts';
import { fetchPhase, type ShardHit } from './shard-search.ts';

interface ScrollCtx { reader: IndexReader; hits: ShardHit[]; req: SearchRequest; index: string; nowMs: number; timer?: NodeJS.Timeout }

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
    // The same fetch phase as a search's (source filtering, routing, versions, highlight, docvalue fields).
    const top = c.hits.slice(offset, offset + size).map((h) => ({ doc: h.doc, score: h.score, sort: h.sort }));
    return fetchPhase(c.reader, c.req, top, { index: c.index, nowMs: c.nowMs });
  }

  delete(key: string): boolean {
    const c = this.ctxs.get(key);
    if (!c) return false;
    if (c.timer) clearTimeout(c.timer);
    c.reader.release();
    return this.ctxs.delete(key);
  }
}
