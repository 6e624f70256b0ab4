/**
 * File-based service discovery: JSON or YAML files of `[{targets, labels}]`, globs allowed in the last
 * path element. Files are re-read when they change (fs.watch on their directories, debounced) and every
 * `refresh_interval`; a file that fails to parse keeps its previous groups, as Prometheus does.
 * Each group gets `__meta_filepath`.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { parse as parseYaml } from '../codec/yaml.ts';
import { parseTargetGroup, type FileSdConfig, type TargetGroup } from './sd-config.ts';

export class FileDiscovery {
  private readonly cfg: FileSdConfig;
  private readonly onChange: (groups: TargetGroup[]) => void;
  private readonly onError: (msg: string) => void;
  private groupsByFile = new Map<string, TargetGroup[]>();
  private watchers: FSWatcher[] = [];
  private timer: NodeJS.Timeout | null = null;
  private debounce: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(cfg: FileSdConfig, onChange: (groups: TargetGroup[]) => void, onError: (msg: string) => void) {
    this.cfg = cfg;
    this.onChange = onChange;
    this.onError = onError;
  }

  /** Reads the files once (resolving when done), then keeps watching. */
  async start(): Promise<TargetGroup[]> {
    await this.refresh();
    for (const dir of new Set(this.cfg.files.map((f) => dirname(f)))) {
      try {
        const w = watch(dir, () => this.scheduleRefresh());
        w.on('error', () => undefined);
        this.watchers.push(w);
      } catch {
        // Directory missing: the periodic refresh still picks files up once it exists.
      }
    }
    this.timer = setInterval(() => void this.refresh(), Math.max(this.cfg.refreshIntervalMs, 1000));
    this.timer.unref();
    return this.groups();
  }

  stop(): void {
    this.stopped = true;
    for (const w of this.watchers) w.close();
    this.watchers = [];
    if (this.timer) clearInterval(this.timer);
    if (this.debounce) clearTimeout(this.debounce);
  }

  groups(): TargetGroup[] {
    return [...this.groupsByFile.values()].flat();
  }

  private scheduleRefresh(): void {
    if (this.stopped || this.debounce) return;
    this.debounce = setTimeout(() => { this.debounce = null; void this.refresh(); }, 100);
  }

  private async refresh(): Promise<void> {
    const files = await this.expand();
    const next = new Map<string, TargetGroup[]>();
    for (const f of files) {
      try {
        next.set(f, await readGroups(f));
      } catch (e) {
        this.onError(`file discovery: ${f}: ${(e as Error).message}`);
        const prev = this.groupsByFile.get(f);
        if (prev) next.set(f, prev);
      }
    }
    if (this.stopped) return;
    const changed = JSON.stringify([...next]) !== JSON.stringify([...this.groupsByFile]);
    this.groupsByFile = next;
    if (changed) this.onChange(this.groups());
  }

  private async expand(): Promise<string[]> {
    const out: string[] = [];
    for (const pattern of this.cfg.files) {
      const base = basename(pattern);
      if (!base.includes('*')) { out.push(pattern); continue; }
      const re = new RegExp('^' + base.split('*').map(escapeRe).join('[^/]*') + '$');
      try {
        for (const name of (await readdir(dirname(pattern))).sort()) if (re.test(name)) out.push(join(dirname(pattern), name));
      } catch {
        // No directory yet: no files.
      }
    }
    return out;
  }
}

function escapeRe(s: string): string { return s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'); }

async function readGroups(file: string): Promise<TargetGroup[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const ext = extname(file).toLowerCase();
  const raw: unknown = ext === '.json' ? JSON.parse(text) : parseYaml(text);
  if (raw === null || raw === undefined) return [];
  if (!Array.isArray(raw)) throw new Error('expected a list of target groups');
  return raw.map((g, i) => {
    const tg = parseTargetGroup(g, `${file}:${i}`);
    tg.labels = { ...tg.labels, __meta_filepath: file };
    return tg;
  });
}
