/**
 * DNS service discovery (Prometheus 2.42 `discovery/dns`): every `refresh_interval`, look up each name
 * (SRV, A, AAAA or MX) with the system's resolvers and make one group per name. Targets carry
 * `__meta_dns_name` and the SRV/MX record labels; record targets keep their trailing dot in the meta
 * labels, as Go's resolver returns them.
 */
import { Resolver } from 'node:dns/promises';
import type { DnsSdConfig, TargetGroup } from './sd-config.ts';
import { RefreshDiscovery } from './refresh-discovery.ts';

/** The lookups DNS SD needs; node's `dns.promises.Resolver` satisfies it, tests pass a fake. */
export interface DnsLookup {
  resolveSrv(name: string): Promise<{ name: string; port: number }[]>;
  resolve4(name: string): Promise<string[]>;
  resolve6(name: string): Promise<string[]>;
  resolveMx(name: string): Promise<{ exchange: string }[]>;
}

export class DnsDiscovery extends RefreshDiscovery {
  private readonly cfg: DnsSdConfig;
  private readonly lookup: DnsLookup;

  constructor(cfg: DnsSdConfig, onChange: (groups: TargetGroup[]) => void, onError: (msg: string) => void, lookup: DnsLookup = new Resolver()) {
    super(cfg.refreshIntervalMs, onChange, (msg) => onError(`dns discovery: ${msg}`));
    this.cfg = cfg;
    this.lookup = lookup;
  }

  protected async refresh(): Promise<TargetGroup[]> {
    return Promise.all(this.cfg.names.map((n) => this.refreshOne(n)));
  }

  private async refreshOne(name: string): Promise<TargetGroup> {
    const targets: string[] = [];
    const targetLabels: Record<string, string>[] = [];
    const add = (addr: string, srvTarget: string, srvPort: string, mxTarget: string): void => {
      targets.push(addr);
      targetLabels.push({ __meta_dns_name: name, __meta_dns_srv_record_target: srvTarget, __meta_dns_srv_record_port: srvPort, __meta_dns_mx_record_target: mxTarget });
    };
    const port = this.cfg.port;
    try {
      switch (this.cfg.type) {
        case 'SRV': for (const r of await this.lookup.resolveSrv(name)) add(hostPort(r.name, r.port), fqdn(r.name), String(r.port), ''); break;
        case 'A': for (const a of await this.lookup.resolve4(name)) add(hostPort(a, port), '', '', ''); break;
        case 'AAAA': for (const a of await this.lookup.resolve6(name)) add(hostPort(a, port), '', '', ''); break;
        case 'MX': for (const r of await this.lookup.resolveMx(name)) add(hostPort(r.exchange, port), '', '', fqdn(r.exchange)); break;
      }
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // A name that does not exist (or has no such records) is an empty group, not a failure, as in Prometheus.
      if (code !== 'ENOTFOUND' && code !== 'ENODATA') throw new Error(`could not resolve "${name}": ${(e as Error).message}`);
    }
    return { targets, labels: {}, source: name, targetLabels };
  }
}

function fqdn(n: string): string { return n.endsWith('.') ? n : n + '.'; }

function hostPort(host: string, port: number): string {
  const h = host.replace(/\.$/, '');
  return h.includes(':') ? `[${h}]:${port}` : `${h}:${port}`;
}
