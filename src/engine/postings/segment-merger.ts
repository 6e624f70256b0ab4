/**
 * Merges segments into one, dropping deleted docs (their statistics disappear with them, as after a
 * Lucene merge). Docs keep their relative order: segment by segment, then by local id, so nested blocks
 * stay contiguous.
 */
import { FieldPostings, NumericDocValues, OrdinalDocValues, Segment } from './segment.ts';

export interface MergeResult {
  segment: Segment;
  /** docMaps[k][oldDoc] = new doc in the merged segment, or -1 when deleted. */
  docMaps: Int32Array[];
}

export function mergeSegments(segs: Segment[], live: (Uint8Array | null)[]): MergeResult {
  const docMaps: Int32Array[] = [];
  let maxDoc = 0;
  for (let k = 0; k < segs.length; k++) {
    const m = new Int32Array(segs[k].maxDoc);
    const l = live[k];
    for (let d = 0; d < m.length; d++) m[d] = !l || l[d] ? maxDoc++ : -1;
    docMaps.push(m);
  }
  const ids: string[] = new Array(maxDoc);
  const paths: string[] = new Array(maxDoc);
  const parentOf = new Int32Array(maxDoc);
  for (let k = 0; k < segs.length; k++) {
    const s = segs[k], m = docMaps[k];
    for (let d = 0; d < s.maxDoc; d++) {
      const nd = m[d];
      if (nd < 0) continue;
      ids[nd] = s.ids[d]; paths[nd] = s.pathOf(d);
      parentOf[nd] = s.parentOf[d] === -1 ? -1 : m[s.parentOf[d]];
    }
  }
  const names = (pick: (s: Segment) => Iterable<string>): Set<string> => {
    const out = new Set<string>();
    for (const s of segs) for (const n of pick(s)) out.add(n);
    return out;
  };
  const fields = new Map<string, FieldPostings>();
  for (const f of names((s) => s.fields.keys())) fields.set(f, mergeField(f, segs, docMaps, maxDoc));
  const numeric = new Map<string, NumericDocValues>();
  for (const f of names((s) => s.numeric.keys())) numeric.set(f, mergeNumeric(f, segs, docMaps, maxDoc));
  const ordinals = new Map<string, OrdinalDocValues>();
  for (const f of names((s) => s.ordinals.keys())) ordinals.set(f, mergeOrdinals(f, segs, docMaps, maxDoc));
  const exists = new Map<string, Uint32Array>();
  for (const f of names((s) => s.exists.keys())) {
    const out: number[] = [];
    for (let k = 0; k < segs.length; k++) {
      const e = segs[k].exists.get(f);
      if (e) for (let i = 0; i < e.length; i++) { const nd = docMaps[k][e[i]]; if (nd >= 0) out.push(nd); }
    }
    exists.set(f, Uint32Array.from(out));
  }
  const roots: number[] = [];
  for (let d = 0; d < maxDoc; d++) if (parentOf[d] === -1) roots.push(d);
  return { segment: new Segment(maxDoc, ids, parentOf, paths, fields, numeric, ordinals, exists, Uint32Array.from(roots)), docMaps };
}

function mergeField(name: string, segs: Segment[], maps: Int32Array[], maxDoc: number): FieldPostings {
  const parts: FieldPostings[] = [], pmaps: Int32Array[] = [];
  for (let k = 0; k < segs.length; k++) { const p = segs[k].fields.get(name); if (p) { parts.push(p); pmaps.push(maps[k]); } }
  const terms = mergedTerms(parts);
  const withFreqs = parts.some((p) => p.freqs);
  // Exact output sizes first, so the postings go straight into typed arrays (no JS-array growth).
  let nDocs = 0, nPos = 0;
  for (let k = 0; k < parts.length; k++) {
    const p = parts[k], m = pmaps[k];
    for (let i = 0; i < p.docs.length; i++) {
      if (m[p.docs[i]] < 0) continue;
      nDocs++;
      if (p.positions) nPos += p.posStart![i + 1] - p.posStart![i];
    }
  }
  const docs = new Uint32Array(nDocs);
  const freqs = withFreqs ? new Uint32Array(nDocs) : null;
  const posStart = withFreqs ? new Uint32Array(nDocs + 1) : null;
  const positions = withFreqs ? new Uint32Array(nPos) : null;
  const docStart = new Uint32Array(terms.length + 1);
  // Each part's dictionary is sorted, so one cursor per part walks it alongside the merged dictionary.
  const cur = new Int32Array(parts.length);
  let o = 0, q = 0;
  for (let ti = 0; ti < terms.length; ti++) {
    docStart[ti] = o;
    const term = terms[ti];
    for (let k = 0; k < parts.length; k++) {
      const p = parts[k];
      const t = cur[k];
      if (t >= p.terms.length || p.terms[t] !== term) continue;
      cur[k] = t + 1;
      const m = pmaps[k], pd = p.docs, pf = p.freqs, ps = p.posStart, pp = p.positions;
      for (let i = p.docStart[t]; i < p.docStart[t + 1]; i++) {
        const nd = m[pd[i]];
        if (nd < 0) continue;
        docs[o] = nd;
        if (freqs) {
          freqs[o] = pf ? pf[i] : 1;
          posStart![o] = q;
          if (pp) for (let j = ps![i]; j < ps![i + 1]; j++) positions![q++] = pp[j];
        }
        o++;
      }
    }
  }
  docStart[terms.length] = o;
  if (posStart) posStart[nDocs] = q;
  let norms: Uint8Array | null = null;
  let docCount = 0, sumTtf = 0;
  if (parts.some((p) => p.norms)) {
    norms = new Uint8Array(maxDoc);
    for (let k = 0; k < parts.length; k++) {
      const n = parts[k].norms, m = pmaps[k];
      if (!n) continue;
      for (let d = 0; d < n.length; d++) { const nd = m[d]; if (nd >= 0) norms[nd] = n[d]; }
    }
  }
  const seen = new Uint8Array(maxDoc);
  for (let i = 0; i < nDocs; i++) if (!seen[docs[i]]) { seen[docs[i]] = 1; docCount++; }
  if (freqs) for (let i = 0; i < nDocs; i++) sumTtf += freqs[i];
  else sumTtf = nDocs;
  return new FieldPostings(terms, docStart, docs, freqs, posStart, positions, norms, docCount, sumTtf);
}

/** The union of the parts' sorted dictionaries, in code-unit order. */
function mergedTerms(parts: FieldPostings[]): string[] {
  if (parts.length === 1) return parts[0].terms.slice();
  const termSet = new Set<string>();
  for (let k = 0; k < parts.length; k++) { const ts = parts[k].terms; for (let i = 0; i < ts.length; i++) termSet.add(ts[i]); }
  return [...termSet].sort();
}

function mergeNumeric(name: string, segs: Segment[], maps: Int32Array[], maxDoc: number): NumericDocValues {
  const start = new Uint32Array(maxDoc + 1);
  const vals: number[] = [];
  for (let k = 0; k < segs.length; k++) {
    const dv = segs[k].numeric.get(name);
    for (let d = 0; d < segs[k].maxDoc; d++) {
      const nd = maps[k][d];
      if (nd < 0) continue;
      if (dv) for (let i = dv.start[d]; i < dv.start[d + 1]; i++) vals.push(dv.values[i]);
      start[nd + 1] = vals.length;
    }
  }
  for (let d = 1; d <= maxDoc; d++) if (start[d] < start[d - 1]) start[d] = start[d - 1];
  return new NumericDocValues(start, Float64Array.from(vals));
}

function mergeOrdinals(name: string, segs: Segment[], maps: Int32Array[], maxDoc: number): OrdinalDocValues {
  const termSet = new Set<string>();
  for (const s of segs) { const dv = s.ordinals.get(name); if (dv) for (const t of dv.ordTerms) termSet.add(t); }
  const ordTerms = [...termSet].sort();
  const ordOf = new Map<string, number>();
  ordTerms.forEach((t, i) => ordOf.set(t, i));
  const start = new Uint32Array(maxDoc + 1);
  const ords: number[] = [];
  for (let k = 0; k < segs.length; k++) {
    const dv = segs[k].ordinals.get(name);
    const remap = dv ? dv.ordTerms.map((t) => ordOf.get(t)!) : [];
    for (let d = 0; d < segs[k].maxDoc; d++) {
      const nd = maps[k][d];
      if (nd < 0) continue;
      if (dv) for (let i = dv.start[d]; i < dv.start[d + 1]; i++) ords.push(remap[dv.ords[i]]);
      start[nd + 1] = ords.length;
    }
  }
  for (let d = 1; d <= maxDoc; d++) if (start[d] < start[d - 1]) start[d] = start[d - 1];
  return new OrdinalDocValues(start, Uint32Array.from(ords), ordTerms);
}
