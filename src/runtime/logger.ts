/**
 * logfmt lines on stderr (`ts=… level=… msg="…" key=value`), filtered by `--log.level`: the structured log of
 * the main thread and of every worker thread.
 */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

const LEVELS = { debug: 0, info: 1, warn: 2, error: 3 } as const;
export type Level = keyof typeof LEVELS;

export function createLogger(level: Level, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const min = LEVELS[level];
  const emit = (lvl: Level, msg: string, fields?: Record<string, unknown>): void => {
    if (LEVELS[lvl] < min) return;
    let line = `ts=${new Date().toISOString()} level=${lvl} msg=${quote(msg)}`;
    if (fields) for (const k in fields) line += ` ${k}=${quote(fields[k] instanceof Error ? (fields[k] as Error).message : fields[k])}`;
    write(line + '\n');
  };
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  };
}

function quote(v: unknown): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v) ?? String(v);
  return /^[\w.:/@+-]+$/.test(s) ? s : JSON.stringify(s);
}

/**
 * Sends this thread's process warnings (`process.emitWarning`: WAL repairs, torn tails, format upgrades) to `log`
 * as warn lines with `fields`, in place of Node's own `(node:PID) Warning:` printer.
 */
export function logProcessWarnings(log: Logger, fields: Record<string, unknown> = {}): void {
  process.removeAllListeners('warning');
  process.on('warning', (w: Error) => log.warn(w.message, { ...fields, warning: w.name }));
}
