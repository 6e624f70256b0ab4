/**
 * Discovery that polls: HTTP SD and DNS SD refresh every `refresh_interval`. A failed refresh keeps the
 * previous groups and logs, as Prometheus's refresh discoverers do; `onChange` fires only when the
 * groups differ.
 */
import type { TargetGroup } from './sd-config.ts';

export abstract class RefreshDiscovery {
  private readonly intervalMs: number;
  private readonly onChange: (groups: TargetGroup[]) => void;
  protected readonly onError: (msg: string) => void;
  private current: TargetGroup[] = [];
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(intervalMs: number, onChange: (groups: TargetGroup[]) => void, onError: (msg: string) => void) {
    this.intervalMs = intervalMs;
    this.onChange = onChange;
    this.onError = onError;
  }

  /** Refreshes once (resolving with the groups), then keeps refreshing. */
  async start(): Promise<TargetGroup[]> {
    await this.tick();
    if (!this.stopped) {
      this.timer = setInterval(() => void this.tick().then(() => undefined), Math.max(this.intervalMs, 1000));
      this.timer.unref();
    }
    return this.current;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
  }

  groups(): TargetGroup[] { return this.current; }

  /** One refresh; throws with the message to log. */
  protected abstract refresh(): Promise<TargetGroup[]>;

  private async tick(): Promise<void> {
    let next: TargetGroup[];
    try {
      next = await this.refresh();
    } catch (e) {
      this.onError((e as Error).message);
      return;
    }
    if (this.stopped) return;
    const changed = JSON.stringify(next) !== JSON.stringify(this.current);
    this.current = next;
    if (changed) this.onChange(next);
  }
}
