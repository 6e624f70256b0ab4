/**
 * The documents figures `core.stats` reports (block cache, indexing buffer), without importing the documents
 * engine: `docs-tasks.ts` registers its source when it is loaded, which is on a worker's first document call
 * (tasks.ts). Until then the worker holds no documents state, and the figures are zeros.
 */
export interface DocumentsFigures { cacheBytes: number; cacheHits: number; cacheMisses: number; indexBufferBytes: number }

const NONE: DocumentsFigures = { cacheBytes: 0, cacheHits: 0, cacheMisses: 0, indexBufferBytes: 0 };
let source: (() => DocumentsFigures | null) | null = null;

/** Called once by docs-tasks.ts as it loads; `f` gives null while no shard is open. */
export function setDocumentsFigures(f: () => DocumentsFigures | null): void {
  source = f;
}

export function documentsFigures(): DocumentsFigures {
  return source?.() ?? { ...NONE };
}
