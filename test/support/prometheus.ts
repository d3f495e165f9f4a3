// parse-prometheus-text-format ships no types: its result, as its README documents it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const parse = require('parse-prometheus-text-format') as (text: string) => MetricFamily[];

export interface Sample {
  labels?: Record<string, string>;
  value?: string;
  buckets?: Record<string, string>;
  count?: string;
  sum?: string;
}
export interface MetricFamily {
  name: string;
  help: string;
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
  metrics: Sample[];
}

/**
 * A scrape, parsed by a Prometheus text-format parser that is not ours: what a Prometheus server
 * would read from the service.
 */
export interface Scrape {
  text: string;
  families: Map<string, MetricFamily>;
  /** The sum of a counter's or gauge's samples whose labels include these. */
  value(name: string, labels?: Record<string, string>): number;
  /** The sum of a histogram's observation counts (its `_count` series) whose labels include these. */
  count(name: string, labels?: Record<string, string>): number;
}

/**
 * The parser keeps a labelled histogram's buckets but drops its `_count`, `_sum` and labels, so
 * histogram counts are read from the `_count` lines here: `name_count{a="x",b="y"} 3`.
 */
const COUNT_LINE = /^(\w+)_count(?:\{(.*)\})? (\S+)$/;
const LABEL = /(\w+)="((?:[^"\\]|\\.)*)"/g;

export const parseScrape = (text: string): Scrape => {
  const families = new Map(parse(text).map((f) => [f.name, f]));
  const counts = text.split('\n').flatMap((line) => {
    const m = COUNT_LINE.exec(line);
    if (!m) return [];
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(LABEL)].map(([, k, v]) => [k!, v!]));
    return [{ name: m[1]!, labels, value: Number(m[3]) }];
  });
  return {
    text,
    families,
    count(name, labels = {}) {
      if (families.get(name)?.type !== 'HISTOGRAM') throw new Error(`no histogram ${name} in the scrape`);
      return counts
        .filter((c) => c.name === name && Object.entries(labels).every(([k, v]) => c.labels[k] === v))
        .reduce((sum, c) => sum + c.value, 0);
    },
    value(name, labels = {}) {
      const family = families.get(name);
      if (!family) throw new Error(`no metric ${name} in the scrape`);
      const matching = family.metrics.filter((s) => Object.entries(labels).every(([k, v]) => s.labels?.[k] === v));
      return matching.reduce((sum, s) => sum + Number(s.value ?? 0), 0);
    },
  };
};

/** `fetcher`: a specification's fetch (in process), fetch itself by default. */
export const scrape = async (url: string, token?: string, fetcher: typeof fetch = fetch): Promise<Scrape> => {
  const res = await fetcher(url, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  return parseScrape(await res.text());
};
