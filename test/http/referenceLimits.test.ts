import type { FormatName } from '#src/formats';
import { SOURCE_FORMATS } from '#src/presets/events';
import { FORMAT_ROUTES } from '#src/http/routes/writes';
import { useApiSpecification } from '../support/apiSpecification';
import { REQUEST_SCHEMA, sampleOf, statedLimits, validRequest, type StatedLimit } from '../support/reference';

/**
 * Every limit OpenRouter's reference states inside the three request schemas, found by walking
 * them (test/support/reference.ts: maxLength, minLength, maxItems, minItems, minimum, maximum,
 * pattern, const, …), each sent over HTTP at its bound and just past it. Where the reference
 * refuses the body past the bound, the service answers 400 naming exactly that JSON path; where
 * the reference still accepts it (a catch-all variant elsewhere makes the limit bind nothing),
 * so does the service. Both bodies at the bound are valid under the reference and answered 200.
 */
const svc = useApiSpecification();

const BASE: Record<FormatName, Record<string, unknown>> = {
  chat_completions: { messages: [{ role: 'user', content: 'hi' }] },
  messages: { model: 'anthropic/claude-sonnet-4', messages: [] },
  responses: {},
};
// Required siblings of a limited property, for bodies that must be valid under the reference.
const SIBLINGS: Record<string, Record<string, unknown>> = {
  '$.output_config.task_budget': { type: 'tokens', total: 20000 },
  '$.input[]{type=additional_tools}': { role: 'developer' },
};

type Step = { kind: 'prop'; name: string } | { kind: 'item' } | { kind: 'tag'; key: string; value: string };
const stepsOf = (at: string): Step[] =>
  [...at.slice(1).matchAll(/\.([A-Za-z0-9_]+|\*)|\[\]|\{(\w+)=([^}]+)\}/g)].map((m) =>
    m[0] === '[]' ? { kind: 'item' } : m[2] ? { kind: 'tag', key: m[2], value: m[3]! } : { kind: 'prop', name: m[1] === '*' ? 'k' : m[1]! },
  );
const place = (steps: Step[], leaf: unknown): unknown => {
  if (steps.length === 0) return leaf;
  const [step, ...rest] = steps as [Step, ...Step[]];
  if (step.kind === 'item') return [place(rest, leaf)];
  if (step.kind === 'prop') return { [step.name]: place(rest, leaf) };
  return { [step.key]: step.value, ...(place(rest, leaf) as object) };
};
const merge = (a: unknown, b: unknown): unknown => {
  if (Array.isArray(a) && Array.isArray(b)) return a.map((x, i) => merge(x, b[i]));
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const out: Record<string, unknown> = { ...(b as object) };
    for (const [k, v] of Object.entries(a)) out[k] = k in out ? merge(v, out[k]) : v;
    return out;
  }
  return b === undefined ? a : b;
};
/** The JSON path a service problem names for a limit's place: `$.plugins[0].allowed_models[0]`. */
const pathOf = (at: string) =>
  stepsOf(at)
    .map((s) => (s.kind === 'item' ? '[0]' : s.kind === 'prop' ? `.${s.name}` : ''))
    .join('')
    .replace(/^/, '$');

/** A value at the bound and one just past it. */
const values = ({ keyword, value, schema }: StatedLimit): [atBound: unknown, past: unknown] => {
  const n = value as number;
  const items = (count: number) => Array.from({ length: count }, () => sampleOf((schema.items ?? {}) as Record<string, unknown>));
  switch (keyword) {
    case 'maxLength':
      return ['a'.repeat(n), 'a'.repeat(n + 1)];
    case 'minLength':
      return ['a'.repeat(n), 'a'.repeat(n - 1)];
    case 'pattern':
      return ['a', 'a!'];
    case 'maxItems':
      return [items(n), items(n + 1)];
    case 'minItems':
      return [items(n), items(n - 1)];
    case 'minimum':
      return [n, n - 1];
    case 'maximum':
      return [n, n + 1];
    case 'const':
      return [value, !value];
  }
  throw new Error(`no values for ${keyword}`);
};

const bodyWith = (format: FormatName, limit: StatedLimit, leaf: unknown) => {
  let fragment = place(stepsOf(limit.at), leaf);
  for (const [prefix, siblings] of Object.entries(SIBLINGS)) {
    if (limit.at.startsWith(`${prefix}.`)) fragment = merge(place(stepsOf(prefix), siblings), fragment);
  }
  return { ...BASE[format], ...(fragment as object) };
};

// Where the reference states a limit that binds nothing (a body past it is still valid), and why.
const NOT_BINDING: Record<FormatName, RegExp | null> = {
  chat_completions: null,
  messages: /^\$\.tools\[\]/, // the tool variants end in one that takes any object with a string type
  responses: /^\$\.input\[\]/, // additional_tools items list tools with the same catch-all variant
};
// Bound by the reference, accepted on purpose: an empty chat-completions conversation (README).
const LENIENT = new Set(['chat_completions $.messages minItems']);

const post = (format: FormatName, slug: string, json: unknown) =>
  svc.request(`/api/v1/presets/${slug}/${FORMAT_ROUTES.find(([, f]) => f === format)![0]}`, { method: 'POST', json });

describe.each(SOURCE_FORMATS)('%s: the limits the reference states', (format) => {
  const limits = statedLimits(REQUEST_SCHEMA[format]);

  it('are found where expected', () => {
    expect(limits.length).toBeGreaterThan(20);
    expect(limits.map((l) => `${l.at} ${l.keyword}`)).toEqual(
      expect.arrayContaining(['$.session_id maxLength', '$.stop_server_tools_when minItems']),
    );
  });

  it.each(limits.map((l) => [`${l.at} ${l.keyword} ${JSON.stringify(l.value)}`, l] as const))('%s', async (_, limit) => {
    const [atBound, past] = values(limit);
    const good = bodyWith(format, limit, atBound);
    const bad = bodyWith(format, limit, past);
    expect({ good: validRequest(format, good) }).toEqual({ good: true });
    const ok = await post(format, 'limits', good);
    expect({ status: ok.status, body: ok.status === 200 ? null : await ok.json() }).toEqual({ status: 200, body: null });

    const binding = !validRequest(format, bad);
    const lenient = LENIENT.has(`${format} ${limit.at} ${limit.keyword}`);
    expect({ binding: binding && !lenient }).toEqual({ binding: !NOT_BINDING[format]?.test(limit.at) && !lenient });
    const res = await post(format, 'limits', bad);
    if (binding && !lenient) {
      expect(res.status).toBe(400);
      expect((await res.json()).error.metadata.errors.map((e: { path: string }) => e.path)).toEqual([pathOf(limit.at)]);
    } else {
      expect(res.status).toBe(200);
    }
  });
});
