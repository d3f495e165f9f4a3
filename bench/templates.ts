/**
 * Using a templated preset (`npm run bench` runs it after the resolve part; `--template-rounds 0`
 * leaves it out), against the same preset without a template (issue 56):
 * - HTTP: POST /api/v1/resolve/chat/completions naming `hot` (the config and system prompt of the
 *   create scenario's first body) and naming `hot-templated` (the same config; its system prompt a
 *   template of three variables and one `#if` that renders to the same text, the values in
 *   `prompt_variables`), in alternated windows of one fresh service per round (the order swapped
 *   every round), `rounds` times;
 * - the in-process client (`presets/client`): one caller resolving both in alternated blocks of
 *   1,000 on the bench's own thread (one core), for `clientSeconds` each.
 * Both answers carry the same request, so what differs is the template's work: checking the values
 * against the schema, filling the template in.
 */
import type { Options } from 'autocannon';
import { createPresetClient } from '../src/client';
import { BODIES } from './bodies';
import { API_KEY, AUTH, call, load, median, withCpu } from './lib';
import { startTarget, writePath } from './scenarios';
import { RESOLVE_BODY, RESOLVE_PATH } from './resolve';

export interface TemplateBenchOptions {
  rounds: number;
  duration: number;
  warmup: number;
  connections: number;
  /** Seconds the in-process client resolves each of the two presets for. */
  clientSeconds: number;
}

type Kind = 'plain' | 'templated';
export interface TemplateHttpRow {
  round: number;
  kind: Kind;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  cpuUsPerRequest: number;
}
export interface TemplateBenchResult {
  http: {
    rows: TemplateHttpRow[];
    plain: { rps: number; cpuUsPerRequest: number };
    templated: { rps: number; cpuUsPerRequest: number };
    ratio: number;
    roundRatios: number[];
  };
  client: Record<Kind, { resolves: number; perSecond: number; cpuUsPerResolve: number }> & { blocks: number };
}

/** Three variables and one #if; rendered with VALUES, the text of the create scenario's first body's system prompt. */
export const TEMPLATE =
  'You are the support assistant of {{company}} (profile 0). Answer in {{language}}, cite the knowledge-base article you used, ' +
  'never promise refunds{{#if escalate}}, and escalate to a human when the customer mentions a legal issue, a security incident or ' +
  'asks twice for a person{{/if}}.';
export const VARIABLES = {
  type: 'object',
  properties: {
    company: { type: 'string', description: 'Whose assistant' },
    language: { type: 'string', default: "the customer's language" },
    escalate: { type: 'boolean' },
  },
  required: ['company'],
};
const VALUES = { company: 'Acme Cloud', escalate: true };
const TEMPLATED_BODY = JSON.stringify({ ...JSON.parse(RESOLVE_BODY), model: '@preset/hot-templated', prompt_variables: VALUES });

/** Both presets in a fresh service; throws unless both resolve to the same request. */
const setUp = async (url: string) => {
  await call(`${url}${writePath('hot')}`, 'POST', BODIES[0]);
  const plain = (await call(`${url}/api/v1/presets/hot`, 'GET')) as {
    data: { designated_version: { config: object; system_prompt: string } };
  };
  await call(
    `${url}/api/v1/presets/hot-templated/versions`,
    'POST',
    JSON.stringify({
      format: 'chat_completions',
      config: plain.data.designated_version.config,
      system_prompt: TEMPLATE,
      template_format: 'handlebars',
      variables: VARIABLES,
    }),
  );
  const [a, b] = [
    (await call(`${url}${RESOLVE_PATH}`, 'POST', RESOLVE_BODY)) as { data: { request: unknown } },
    (await call(`${url}${RESOLVE_PATH}`, 'POST', TEMPLATED_BODY)) as { data: { request: unknown } },
  ];
  if (JSON.stringify(a.data.request) !== JSON.stringify(b.data.request)) {
    throw new Error(`the templated preset resolves to another request than the plain one:\n${JSON.stringify(b.data.request)}`);
  }
};

const window = async (pid: number, url: string, kind: Kind, round: number, o: TemplateBenchOptions): Promise<TemplateHttpRow> => {
  const options: Options = {
    url,
    connections: o.connections,
    headers: AUTH,
    requests: [{ method: 'POST', path: RESOLVE_PATH, body: kind === 'plain' ? RESOLVE_BODY : TEMPLATED_BODY }],
  };
  if (o.warmup) await load({ ...options, duration: o.warmup });
  const r = await withCpu(pid, () => load({ ...options, duration: o.duration }));
  return { round, kind, rps: r.rps, p50: r.p50, p99: r.p99, errors: r.errors, non2xx: r.non2xx, cpuUsPerRequest: r.cpuUsPerRequest };
};

export const runTemplateBench = async (o: TemplateBenchOptions, log: (line: string) => void): Promise<TemplateBenchResult> => {
  const rows: TemplateHttpRow[] = [];
  for (let round = 1; round <= o.rounds; round++) {
    const server = await startTarget('service');
    try {
      await setUp(server.url);
      const order: Kind[] = round % 2 === 1 ? ['plain', 'templated'] : ['templated', 'plain'];
      for (const kind of order) {
        const row = await window(server.pid, server.url, kind, round, o);
        rows.push(row);
        log(
          `round ${round} resolve ${kind.padEnd(9)} ${Math.round(row.rps)} req/s p50 ${row.p50} ms p99 ${row.p99} ms errors ${row.errors} non-2xx ${row.non2xx} CPU ${Math.round(row.cpuUsPerRequest)} µs/req`,
        );
      }
    } finally {
      await server.stop();
    }
  }
  const med = (kind: Kind) => {
    const of = rows.filter((r) => r.kind === kind);
    return { rps: median(of.map((r) => r.rps)), cpuUsPerRequest: median(of.map((r) => r.cpuUsPerRequest)) };
  };
  const rps = (round: number, kind: Kind) => rows.find((r) => r.round === round && r.kind === kind)!.rps;
  const roundRatios = [...new Set(rows.map((r) => r.round))].map((round) => rps(round, 'templated') / rps(round, 'plain'));
  const http = { rows, plain: med('plain'), templated: med('templated'), ratio: med('templated').rps / med('plain').rps, roundRatios };

  // In process: alternated blocks of 1,000 resolves of each, one caller awaiting each.
  const server = await startTarget('service');
  const client = createPresetClient({ baseUrl: server.url, apiKey: API_KEY });
  try {
    await setUp(server.url);
    await client.ready();
    const bodies: Record<Kind, Record<string, unknown>> = { plain: JSON.parse(RESOLVE_BODY), templated: JSON.parse(TEMPLATED_BODY) };
    for (const kind of ['plain', 'templated'] as const) {
      for (const end = performance.now() + 500; performance.now() < end;) await client.resolve('chat_completions', bodies[kind]);
    }
    const spent: Record<Kind, { ms: number; cpuUs: number; resolves: number }> = {
      plain: { ms: 0, cpuUs: 0, resolves: 0 },
      templated: { ms: 0, cpuUs: 0, resolves: 0 },
    };
    let blocks = 0;
    while (spent.plain.ms + spent.templated.ms < o.clientSeconds * 2000) {
      for (const kind of blocks % 2 === 0 ? (['plain', 'templated'] as const) : (['templated', 'plain'] as const)) {
        const [started, cpu] = [performance.now(), process.cpuUsage()];
        for (let i = 0; i < 1000; i++) await client.resolve('chat_completions', bodies[kind]);
        const used = process.cpuUsage(cpu);
        spent[kind].ms += performance.now() - started;
        spent[kind].cpuUs += used.user + used.system;
        spent[kind].resolves += 1000;
      }
      blocks++;
    }
    const of = (kind: Kind) => ({
      resolves: spent[kind].resolves,
      perSecond: (spent[kind].resolves * 1000) / spent[kind].ms,
      cpuUsPerResolve: spent[kind].cpuUs / spent[kind].resolves,
    });
    const clientResult = { plain: of('plain'), templated: of('templated'), blocks };
    log(
      `resolve client, templated: ${Math.round(clientResult.templated.perSecond)} resolves/s (${clientResult.templated.cpuUsPerResolve.toFixed(1)} µs CPU each) against ${Math.round(clientResult.plain.perSecond)} without a template (${clientResult.plain.cpuUsPerResolve.toFixed(1)} µs), ${blocks} alternated pairs of blocks`,
    );
    return { http, client: clientResult };
  } finally {
    await client.close();
    await server.stop();
  }
};
