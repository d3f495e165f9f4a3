import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
// An ES module with a CommonJS build: loaded as CommonJS, typed from its ES declarations.
import type * as LezerPromql from '@prometheus-io/lezer-promql' with { 'resolution-mode': 'import' };
import { parse as parseYaml } from 'yaml';
import { scrape, type Scrape } from '../support/prometheus';
import { startApiSpecification, type ApiSpecification } from '../support/apiSpecification';
import { chatBody } from '../support/service';

/**
 * docs/alerts.yml and docs/grafana-dashboard.json are only worth something if their queries name
 * metrics the service exposes. Each query is parsed with Prometheus' own PromQL grammar, and every
 * metric it selects must be in a real scrape; every presets_* metric of the scrape must be
 * described in docs/operations.md.
 */
const { parser } = createRequire(__filename)('@prometheus-io/lezer-promql') as typeof LezerPromql;

const DOCS = join(__dirname, '..', '..', 'docs');

interface Query {
  where: string;
  expr: string;
}

const alertQueries = (): Query[] => {
  const rules = parseYaml(readFileSync(join(DOCS, 'alerts.yml'), 'utf8')) as {
    groups: { name: string; rules: { alert: string; expr: string }[] }[];
  };
  return rules.groups.flatMap((g) => g.rules.map((r) => ({ where: `alerts.yml ${r.alert}`, expr: r.expr })));
};

const dashboardQueries = (): Query[] => {
  const dashboard = JSON.parse(readFileSync(join(DOCS, 'grafana-dashboard.json'), 'utf8')) as {
    panels: { title: string; targets: { expr: string }[] }[];
  };
  // Grafana's variables are substituted before Prometheus sees a query: as Grafana does, with a range.
  return dashboard.panels.flatMap((p) =>
    p.targets.map((t) => ({ where: `dashboard "${p.title}"`, expr: t.expr.replaceAll('$__rate_interval', '1m') })),
  );
};

/** The metric names a PromQL expression selects; throws on a syntax error. */
const selectedMetrics = ({ where, expr }: Query): string[] => {
  const tree = parser.parse(expr);
  const names: string[] = [];
  let error: number | null = null;
  tree.iterate({
    enter(node) {
      if (node.type.isError && error === null) error = node.from;
      if (node.name === 'Identifier') names.push(expr.slice(node.from, node.to));
    },
  });
  if (error !== null) throw new Error(`${where}: PromQL syntax error at ${error}: ${expr}`);
  return names;
};

/** A histogram's series are `<family>_bucket`, `_sum`, `_count`. */
const exposed = (s: Scrape, name: string) =>
  s.families.has(name) ||
  ['_bucket', '_sum', '_count'].some(
    (suffix) => name.endsWith(suffix) && s.families.get(name.slice(0, -suffix.length))?.type === 'HISTOGRAM',
  );

describe('docs/operations.md, alerts.yml and grafana-dashboard.json against a real scrape', () => {
  let svc: ApiSpecification;
  let metrics: Scrape;
  beforeAll(async () => {
    svc = await startApiSpecification();
    await svc.request('/api/v1/presets/ops-doc/chat/completions', { method: 'POST', json: chatBody() });
    metrics = await scrape(`${svc.url}/metrics`, undefined, svc.fetch);
  });
  afterAll(async () => {
    await svc.close();
  });

  it('has queries to check', () => {
    expect(alertQueries().length).toBeGreaterThanOrEqual(3);
    expect(dashboardQueries().length).toBeGreaterThanOrEqual(10);
  });

  it.each([...alertQueries(), ...dashboardQueries()].map((q) => [q.where, q] as const))(
    '%s selects only metrics the service exposes',
    (_, query) => {
      const names = selectedMetrics(query);
      expect(names.length).toBeGreaterThan(0);
      for (const name of names) expect({ name, exposed: exposed(metrics, name) }).toEqual({ name, exposed: true });
    },
  );

  it('the alerts cover a stuck projector, a growing webhook backlog and the 5xx rate', () => {
    const names = new Set(alertQueries().flatMap(selectedMetrics));
    for (const name of [
      'presets_projector_lag_seconds',
      'presets_projector_position',
      'presets_webhook_backlog_events',
      'presets_http_requests_total',
    ])
      expect(names).toContain(name);
  });

  it('docs/operations.md describes every presets_* metric the service exposes, and no other', () => {
    const doc = readFileSync(join(DOCS, 'operations.md'), 'utf8');
    const documented = new Set([...doc.matchAll(/^\| `(presets_\w+)`/gm)].map((m) => m[1]!));
    const scraped = new Set([...metrics.families.keys()].filter((n) => n.startsWith('presets_')));
    expect([...documented].sort()).toEqual([...scraped].sort());
  });

  it('the dashboard shows every presets_* metric', () => {
    const shown = new Set(
      dashboardQueries()
        .flatMap(selectedMetrics)
        .map((n) => n.replace(/_(bucket|sum|count)$/, '')),
    );
    const missing = [...metrics.families.keys()].filter((n) => n.startsWith('presets_') && !shown.has(n));
    expect(missing).toEqual([]);
  });
});
