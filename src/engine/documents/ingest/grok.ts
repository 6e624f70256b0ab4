/**
 * Grok: `%{SYNTAX:SEMANTIC:TYPE}` patterns expanded from a pattern table into one RE2 expression (linear time,
 * like every user-supplied regex here), matched anywhere in the value as ES's grok processor does. The table
 * holds the patterns Filebeat modules and common logs use (written for RE2: the originals' look-arounds are
 * dropped). SEMANTIC names the field (dotted paths allowed); TYPE converts it (int, long, float, double,
 * boolean); `(?<name>…)` captures name a field too.
 */
import { compileRe2, type Re2Regex } from '../../regex/index.ts';
import { illegalArgument } from '../doc-errors.ts';

const BASE: Record<string, string> = {
  USERNAME: '[a-zA-Z0-9._-]+', USER: '%{USERNAME}', EMAILLOCALPART: '[a-zA-Z][a-zA-Z0-9_.+=:-]+', EMAILADDRESS: '%{EMAILLOCALPART}@%{HOSTNAME}',
  HTTPDUSER: '%{EMAILADDRESS}|%{USER}', INT: '(?:[+-]?(?:[0-9]+))', BASE10NUM: '(?:[+-]?(?:(?:[0-9]+(?:\\.[0-9]+)?)|(?:\\.[0-9]+)))',
  NUMBER: '(?:%{BASE10NUM})', BASE16NUM: '(?:0[xX]?[0-9a-fA-F]+)', POSINT: '\\b(?:[1-9][0-9]*)\\b', NONNEGINT: '\\b(?:[0-9]+)\\b',
  WORD: '\\b\\w+\\b', NOTSPACE: '\\S+', SPACE: '\\s*', DATA: '.*?', GREEDYDATA: '.*',
  QUOTEDSTRING: '(?:"(?:[^"\\\\]|\\\\.)*"|\'(?:[^\'\\\\]|\\\\.)*\'|`(?:[^`\\\\]|\\\\.)*`)', QS: '%{QUOTEDSTRING}',
  UUID: '[A-Fa-f0-9]{8}-(?:[A-Fa-f0-9]{4}-){3}[A-Fa-f0-9]{12}',
  IPV4: '(?:(?:25[0-5]|2[0-4][0-9]|[01]?[0-9]?[0-9])\\.){3}(?:25[0-5]|2[0-4][0-9]|[01]?[0-9]?[0-9])',
  IPV6: '(?:(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}|(?:[0-9A-Fa-f]{1,4}:){1,7}:|(?:[0-9A-Fa-f]{1,4}:){1,6}:[0-9A-Fa-f]{1,4}|::(?:[0-9A-Fa-f]{1,4}:){0,5}[0-9A-Fa-f]{1,4}|::)',
  IP: '(?:%{IPV6}|%{IPV4})', HOSTNAME: '\\b(?:[0-9A-Za-z][0-9A-Za-z-]{0,62})(?:\\.(?:[0-9A-Za-z][0-9A-Za-z-]{0,62}))*\\.?',
  IPORHOST: '(?:%{IP}|%{HOSTNAME})', HOSTPORT: '%{IPORHOST}:%{POSINT}',
  UNIXPATH: '(?:/[\\w_%!$@:.,+~-]*)+', WINPATH: '(?:[A-Za-z]+:|\\\\)(?:\\\\[^\\\\?*]*)+', PATH: '(?:%{UNIXPATH}|%{WINPATH})',
  URIPROTO: '[A-Za-z][A-Za-z0-9+.-]+', URIHOST: '%{IPORHOST}(?::%{POSINT})?', URIPATH: '(?:/[A-Za-z0-9$.+!*\'(){},~:;=@#%&_-]*)+',
  URIPARAM: '\\?[A-Za-z0-9$.+!*\'|(){},~@#%&/=:;_?\\[\\]<>-]*', URIPATHPARAM: '%{URIPATH}(?:%{URIPARAM})?',
  URI: '%{URIPROTO}://(?:%{USER}(?::[^@]*)?@)?(?:%{URIHOST})?(?:%{URIPATHPARAM})?',
  MONTH: '\\b(?:[Jj]an(?:uary)?|[Ff]eb(?:ruary)?|[Mm]ar(?:ch)?|[Aa]pr(?:il)?|[Mm]ay|[Jj]un(?:e)?|[Jj]ul(?:y)?|[Aa]ug(?:ust)?|[Ss]ep(?:tember)?|[Oo]ct(?:ober)?|[Nn]ov(?:ember)?|[Dd]ec(?:ember)?)\\b',
  MONTHNUM: '(?:0?[1-9]|1[0-2])', MONTHDAY: '(?:(?:0[1-9])|(?:[12][0-9])|(?:3[01])|[1-9])',
  DAY: '(?:Mon(?:day)?|Tue(?:sday)?|Wed(?:nesday)?|Thu(?:rsday)?|Fri(?:day)?|Sat(?:urday)?|Sun(?:day)?)',
  YEAR: '(?:\\d\\d){1,2}', HOUR: '(?:2[0123]|[01]?[0-9])', MINUTE: '(?:[0-5][0-9])', SECOND: '(?:(?:[0-5]?[0-9]|60)(?:[:.,][0-9]+)?)',
  TIME: '%{HOUR}:%{MINUTE}(?::%{SECOND})?', ISO8601_TIMEZONE: '(?:Z|[+-]%{HOUR}(?::?%{MINUTE}))',
  TIMESTAMP_ISO8601: '%{YEAR}-%{MONTHNUM}-%{MONTHDAY}[T ]%{HOUR}:?%{MINUTE}(?::?%{SECOND})?%{ISO8601_TIMEZONE}?',
  HTTPDATE: '%{MONTHDAY}/%{MONTH}/%{YEAR}:%{TIME} %{INT}', SYSLOGTIMESTAMP: '%{MONTH} +%{MONTHDAY} %{TIME}',
  LOGLEVEL: '(?:[Aa]lert|ALERT|[Tt]race|TRACE|[Dd]ebug|DEBUG|[Nn]otice|NOTICE|[Ii]nfo|INFO|[Ww]arn(?:ing)?|WARN(?:ING)?|[Ee]rr(?:or)?|ERR(?:OR)?|[Cc]rit(?:ical)?|CRIT(?:ICAL)?|[Ff]atal|FATAL|[Ss]evere|SEVERE|EMERG(?:ENCY)?|[Ee]merg(?:ency)?)',
  PROG: '[\\x21-\\x5a\\x5c\\x5e-\\x7e]+', SYSLOGPROG: '%{PROG:program}(?:\\[%{POSINT:pid}\\])?', SYSLOGHOST: '%{IPORHOST}',
  SYSLOGFACILITY: '<%{NONNEGINT:facility}.%{NONNEGINT:priority}>',
  SYSLOGBASE: '%{SYSLOGTIMESTAMP:timestamp} (?:%{SYSLOGFACILITY} )?%{SYSLOGHOST:logsource} %{SYSLOGPROG}:',
  COMMONAPACHELOG: '%{IPORHOST:clientip} %{HTTPDUSER:ident} %{USER:auth} \\[%{HTTPDATE:timestamp}\\] "(?:%{WORD:verb} %{NOTSPACE:request}(?: HTTP/%{NUMBER:httpversion})?|%{DATA:rawrequest})" %{NUMBER:response} (?:%{NUMBER:bytes}|-)',
  COMBINEDAPACHELOG: '%{COMMONAPACHELOG} %{QS:referrer} %{QS:agent}',
};

type Conv = 'int' | 'long' | 'float' | 'double' | 'boolean' | null;

export interface Grok { regex: Re2Regex; fields: { group: string; field: string; conv: Conv }[] }

/** Compiles one grok pattern with the base table and `definitions` (custom patterns). */
export function compileGrok(pattern: string, definitions: Record<string, string> = {}): Grok {
  const table = { ...BASE, ...definitions };
  const fields: Grok['fields'] = [];
  const expand = (p: string, depth: number): string => {
    if (depth > 30) throw illegalArgument(`circular reference in pattern [${pattern}]`);
    let out = p.replace(/%\{(\w+)(?::([\w.@[\]-]+))?(?::(int|long|float|double|boolean))?\}/g, (_m, name: string, field?: string, conv?: string) => {
      const def = table[name];
      if (def === undefined) throw illegalArgument(`Unable to find pattern [${name}] in Grok's pattern dictionary`);
      const body = expand(def, depth + 1);
      if (!field) return `(?:${body})`;
      const group = `g${fields.length}`;
      fields.push({ group, field: field.replace(/^\[|\]$/g, '').replace(/\]\[/g, '.'), conv: (conv ?? null) as Conv });
      return `(?P<${group}>${body})`;
    });
    out = out.replace(/\(\?<([A-Za-z_][\w.@]*)>/g, (_m, field: string) => {
      const group = `g${fields.length}`;
      fields.push({ group, field, conv: null });
      return `(?P<${group}>`;
    });
    return out;
  };
  const source = expand(pattern, 0);
  let regex: Re2Regex;
  try { regex = compileRe2(source); } catch (e) { throw illegalArgument(`Invalid regex pattern found in: [${pattern}]. ${(e as Error).message}`); }
  return { regex, fields };
}

/** The captures of the first pattern that matches `value` (null when none does). */
export function grokMatch(groks: readonly Grok[], value: string): { captures: [string, unknown][]; index: number } | null {
  for (let i = 0; i < groks.length; i++) {
    const m = groks[i].regex.exec(value);
    if (!m) continue;
    const captures: [string, unknown][] = [];
    for (const f of groks[i].fields) {
      const v = m.groups?.[f.group];
      if (v === undefined) continue;
      captures.push([f.field, convert(v, f.conv)]);
    }
    return { captures, index: i };
  }
  return null;
}

function convert(v: string, conv: Conv): unknown {
  switch (conv) {
    case 'int': case 'long': { const n = Number.parseInt(v, 10); return Number.isNaN(n) ? v : n; }
    case 'float': case 'double': { const n = Number(v); return Number.isNaN(n) ? v : n; }
    case 'boolean': return v.toLowerCase() === 'true';
    default: return v;
  }
}
