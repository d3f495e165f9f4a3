import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import * as E from 'fp-ts/Either';
import { createPresetClient, PresetResolveError, type PresetClient } from '#src/client';
import { FORMAT_CODECS, type FormatName } from '#src/formats';
import { SOURCE_FORMATS } from '#src/presets/events';
import { REFERENCE_FILE, REQUEST_SCHEMA, referenceValidator, validRequest } from '../support/reference';
import { withinPart8 } from '../support/part8';
import { RICH_BODIES } from '../support/richBodies';
import { useApiSpecification } from '../support/apiSpecification';
import { KEYS } from '../support/service';

/**
 * The property: for any preset made from any format and any valid request of any format,
 * the resolved request is valid for the target format's codec and for OpenRouter's reference
 * schema, and the service and the in-process client give identical answers.
 *
 * "Any" is drawn from two pools of each format, both kept to the bodies ajv finds valid under the
 * reference and that are within part 8 of the spec: bodies generated from the reference's request
 * schemas (json-schema-faker, seeded), which reach every field; and bodies rich in what translation
 * and merging are about (tools of every shape, tool choices, output formats, reasoning, stop
 * sequences: support/richBodies.ts, seeded), which the generator seldom makes. Presets are made
 * from both over HTTP; requests are others with a preset named in one of the three forms (and a
 * responses request in OpenAI's `prompt` too), with or without a pin. The client is made after the presets, so it holds the same state.
 */
const SEED = 16;
const GENERATED = 300; // per format
const PRESETS_PER_FORMAT = 40;
const ROUTE: Record<FormatName, string> = { chat_completions: 'chat/completions', messages: 'messages', responses: 'responses' };

let client: PresetClient;
// Declared before the service's hooks, so the client lets go of the feed before the service stops.
afterAll(async () => {
  await client?.close();
});
const svc = useApiSpecification();
let pool: Record<FormatName, Array<Record<string, unknown>>>;
const presets: Record<FormatName, string[]> = { chat_completions: [], messages: [], responses: [] };

beforeAll(async () => {
  const script = join(__dirname, '..', 'support', 'generateBodies.mjs');
  const generated = JSON.parse(
    execFileSync(
      process.execPath,
      [script, REFERENCE_FILE, String(SEED), String(GENERATED), ...SOURCE_FORMATS.map((f) => REQUEST_SCHEMA[f])],
      {
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
      },
    ),
  ) as Record<string, unknown[]>;
  const usable = (format: FormatName, bodies: unknown[]) =>
    bodies
      .filter((b): b is Record<string, unknown> => b !== null && typeof b === 'object' && validRequest(format, b))
      .map((b) => withinPart8(format, b))
      .filter((b) => validRequest(format, b) && FORMAT_CODECS[format].codec.is(b) && !JSON.stringify(b.model ?? '').includes('@preset/'));
  // Alternately generated and rich, so presets and requests come from both.
  const interleave = <T>(a: T[], b: T[]) =>
    Array.from({ length: Math.max(a.length, b.length) }, (_, i) => [a[i], b[i]])
      .flat()
      .filter((x): x is T => x !== undefined);
  pool = Object.fromEntries(
    SOURCE_FORMATS.map((format) => [
      format,
      interleave(
        usable(format, generated[REQUEST_SCHEMA[format]]!),
        usable(format, fc.sample(RICH_BODIES[format], { seed: SEED, numRuns: 150 })),
      ),
    ]),
  ) as typeof pool;
  for (const format of SOURCE_FORMATS) {
    for (const [i, body] of pool[format].slice(0, PRESETS_PER_FORMAT * 2).entries()) {
      if (presets[format].length === PRESETS_PER_FORMAT) break;
      const slug = `${format}-${i}`;
      // A second version for some, so @1, @latest and the designated version differ.
      const versions = i % 3 === 0 ? [body, pool[format][(i + 7) % pool[format].length]!] : [body];
      let ok = true;
      for (const version of versions) {
        const res = await svc.request(`/api/v1/presets/${slug}/${ROUTE[format]}`, { method: 'POST', json: version });
        ok &&= res.status === 200;
      }
      if (ok) presets[format].push(slug);
    }
  }
  client = createPresetClient({ baseUrl: svc.url, apiKey: KEYS.readerOnly, fetch: svc.fetch });
  await client.ready();
}, 120_000);

it('draws from enough of each: valid bodies and presets of every format', () => {
  for (const format of SOURCE_FORMATS) {
    expect(pool[format].length).toBeGreaterThan(60);
    expect(presets[format].length).toBe(PRESETS_PER_FORMAT);
  }
});

/**
 * The body naming the preset in a form. A responses body's `prompt` (OpenAI's stored-prompt
 * reference, which the generated bodies carry) names the preset itself (form 4): it is taken off a
 * body that names it another way (both is a 400), and is the form for `prompt` (responses only).
 */
const named = (
  body: Record<string, unknown>,
  slug: string,
  form: 'model' | 'override' | 'field' | 'prompt',
  pin: string,
  target: FormatName,
): Record<string, unknown> => {
  const { preset: _, prompt, ...rest } = body;
  const ref = `${slug}${pin}`;
  if (form === 'prompt' && target === 'responses') {
    const { model: _model, ...withoutModel } = rest;
    const variables = typeof prompt === 'object' && prompt !== null ? { variables: (prompt as Record<string, unknown>).variables } : {};
    return { ...withoutModel, prompt: { id: slug, ...(pin === '' ? {} : { version: pin.slice(1) }), ...variables } };
  }
  if (form === 'model') return { ...rest, model: `@preset/${ref}` };
  if (form === 'override')
    return { ...rest, model: `${typeof rest.model === 'string' && rest.model !== '' ? rest.model : 'acme/model'}@preset/${ref}` };
  return { ...rest, preset: ref };
};

it('resolves every valid request naming every preset to a valid request, and the client answers as the service does', async () => {
  const draw = fc.record({
    source: fc.constantFrom(...SOURCE_FORMATS),
    target: fc.constantFrom(...SOURCE_FORMATS),
    preset: fc.nat(),
    request: fc.nat(),
    form: fc.constantFrom('model' as const, 'override' as const, 'field' as const, 'prompt' as const),
    pin: fc.constantFrom('', '@1', '@latest'),
  });
  const wrongs: unknown[] = [];
  await fc.assert(
    fc.asyncProperty(draw, async ({ source, target, preset, request, form, pin }) => {
      const slug = presets[source][preset % presets[source].length]!;
      const body = named(pool[target][request % pool[target].length]!, slug, form, pin, target);
      const res = await svc.request(`/api/v1/resolve/${ROUTE[target]}`, { method: 'POST', json: body });
      const answer = await res.json();
      const server = res.status === 200 ? { ok: answer.data } : { error: answer.error };
      let local;
      try {
        local = { ok: await client.resolve(target, body) };
      } catch (error) {
        if (!(error instanceof PresetResolveError)) throw error;
        local = { error: { code: error.code, message: error.message, metadata: error.metadata } };
      }
      const problems: string[] = [];
      if (JSON.stringify(local) !== JSON.stringify(server)) problems.push('the client and the service differ');
      if (res.status === 200) {
        const resolved = answer.data.request as Record<string, unknown>;
        const decoded = FORMAT_CODECS[target].codec.decode(resolved);
        if (E.isLeft(decoded)) problems.push(`not a valid ${target} request for its codec`);
        const reference = referenceValidator(REQUEST_SCHEMA[target]);
        if (!reference(resolved)) problems.push(`not valid under the reference: ${JSON.stringify(reference.errors?.slice(0, 3))}`);
        if ('preset' in resolved || String(resolved.model ?? '').includes('@preset/')) problems.push('the request still names the preset');
      } else if (!(res.status === 400 && target === 'messages' && answer.error.metadata.errors[0].path === '$.model')) {
        // The only refusal a valid request may get: messages needs a model, and neither it nor the preset has one.
        problems.push(`answered ${res.status}`);
      }
      if (problems.length > 0) wrongs.push({ source, target, slug, form, pin, problems, body, server });
      return wrongs.length === 0;
    }),
    { numRuns: 500, seed: SEED },
  );
  expect(wrongs).toEqual([]);
}, 120_000);
