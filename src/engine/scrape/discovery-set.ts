/**
 * All the discovery of one scrape pool or Alertmanager set: static groups plus one running discoverer
 * per file, HTTP and DNS SD config. `start` resolves once every discoverer has refreshed once; after
 * that, `onChange` fires with the full list whenever one of them changes. Kinds Tessera does not
 * implement are logged once and contribute no targets.
 */
import type { SdConfigs, TargetGroup } from './sd-config.ts';
import { FileDiscovery } from './file-sd.ts';
import { HttpDiscovery } from './http-sd.ts';
import { DnsDiscovery, type DnsLookup } from './dns-sd.ts';
import type { HttpGet } from './http-get.ts';

interface Discoverer { start(): Promise<TargetGroup[]>; stop(): void; groups(): TargetGroup[] }

export interface DiscoveryDeps { onError(msg: string): void; get?: HttpGet; dns?: DnsLookup }

export class DiscoverySet {
  private readonly sd: SdConfigs;
  private readonly discoverers: Discoverer[];
  private readonly onError: (msg: string) => void;
  private readonly owner: string;

  constructor(owner: string, sd: SdConfigs, onChange: (groups: TargetGroup[]) => void, deps: DiscoveryDeps) {
    this.sd = sd;
    this.owner = owner;
    this.onError = deps.onError;
    const changed = (): void => onChange(this.groups());
    this.discoverers = [
      ...sd.fileSdConfigs.map((c) => new FileDiscovery(c, changed, deps.onError)),
      ...sd.httpSdConfigs.map((c) => new HttpDiscovery(c, changed, deps.onError, deps.get)),
      ...sd.dnsSdConfigs.map((c) => new DnsDiscovery(c, changed, deps.onError, deps.dns)),
    ];
  }

  async start(): Promise<TargetGroup[]> {
    for (const name of Object.keys(this.sd.unsupported)) {
      this.onError(`${this.owner}: ${name} is not supported by Tessera; its targets are not discovered`);
    }
    await Promise.all(this.discoverers.map((d) => d.start()));
    return this.groups();
  }

  stop(): void {
    for (const d of this.discoverers) d.stop();
  }

  groups(): TargetGroup[] {
    return [...this.sd.staticConfigs, ...this.discoverers.flatMap((d) => d.groups())];
  }
}
