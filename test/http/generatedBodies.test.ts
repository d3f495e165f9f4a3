import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { FormatName } from '#src/formats';
import { fieldsOf } from '#src/formats/persistedFields';
import { FORMAT_ROUTES } from '#src/http/routes/writes';
import { SOURCE_FORMATS } from '#src/presets/events';
import { part8Problems, withinPart8 } from '../support/part8';
import Ajv2020 from 'ajv/dist/2020';
import { openApiDocument } from '#src/http/openapi';
import { REFERENCE_FILE, REQUEST_SCHEMA, validRequest } from '../support/reference';
import { useApiSpecification } from '../support/apiSpecification';

/**
 * Bodies generated from OpenRouter's reference request schemas (json-schema-faker, seeded), kept
 * when ajv finds them valid under the reference, sent over HTTP. Every answer is checked against
 * what the reference and the spec promise, not against the service's own codecs: never a 5xx;
 * 400 naming exactly the paths that break part 8 of the spec (an oracle written from its table);
 * otherwise 200 with `config` holding exactly the body's non-null fields that the persisted-fields
 * table marks `config`, as sent, and `system_prompt` as the spec's rule takes it. The service's
 * own published request schema (/api/v1/openapi.json) gives the same verdict as its answer.
 */
const SEED = 13;
const GENERATED = 900; // per format; about a third to a half are valid under the reference
const AT_LEAST = 150;

const svc = useApiSpecification();
let bodies: Record<FormatName, Record<string, unknown>[]>;

beforeAll(async () => {
  const script = join(__dirname, '..', 'support', 'generateBodies.mjs');
  const names = SOURCE_FORMATS.map((f) => REQUEST_SCHEMA[f]);
  const generated = JSON.parse(
    execFileSync(process.execPath, [script, REFERENCE_FILE, String(SEED), String(GENERATED), ...names], {
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
    }),
  ) as Record<string, unknown[]>;
  bodies = Object.fromEntries(
    SOURCE_FORMATS.map((format) => {
      const valid = generated[REQUEST_SCHEMA[format]]!.filter((b): b is Record<string, unknown> => b !== null && validRequest(format, b));
      // Every other body brought within part 8 (still valid under the reference, which states no
      // such ranges), so both the 200 and the 400 answers are well exercised.
      return [format, valid.map((b, i) => (i % 2 === 0 ? withinPart8(format, b) : b)).filter((b) => validRequest(format, b))];
    }),
  ) as typeof bodies;
}, 60_000);

const textOfParts = (parts: unknown[]) =>
  parts
    .filter(
      (p): p is { type: 'text'; text: string } =>
        !!p && typeof p === 'object' && (p as { type?: unknown }).type === 'text' && typeof (p as { text?: unknown }).text === 'string',
    )
    .map((p) => p.text)
    .join('\n\n');

/** Spec part 1: the first system message (chat), `system` (messages), `instructions` (responses). */
const expectedSystemPrompt = (format: FormatName, body: Record<string, unknown>): string => {
  const text = (v: unknown) => (typeof v === 'string' ? v : Array.isArray(v) ? textOfParts(v) : '');
  if (format === 'chat_completions') {
    const system = (body.messages as Array<{ role?: unknown; content?: unknown }>).find((m) => m.role === 'system');
    return text(system?.content);
  }
  return text(format === 'messages' ? body.system : body.instructions);
};

const expectedConfig = (format: FormatName, body: Record<string, unknown>) =>
  Object.fromEntries(
    fieldsOf(format, 'config')
      .filter((f) => body[f] !== undefined && body[f] !== null)
      .map((f) => [f, body[f]]),
  );

const OWN_SCHEMA: Record<FormatName, string> = {
  chat_completions: 'ChatCompletionsRequest',
  messages: 'MessagesRequest',
  responses: 'ResponsesRequest',
};
const own = new Ajv2020({ strict: false });
own.addSchema({ $id: 'urn:presets:openapi', ...(openApiDocument() as object) });

describe.each(SOURCE_FORMATS)('%s: bodies generated from the reference', (format) => {
  const route = FORMAT_ROUTES.find(([, f]) => f === format)![0];
  const ownSchema = own.compile({ $ref: `urn:presets:openapi#/components/schemas/${OWN_SCHEMA[format]}` });

  it(`are answered as the reference and part 8 say, never with a 5xx (at least ${AT_LEAST} bodies)`, async () => {
    const sent = bodies[format];
    expect(sent.length).toBeGreaterThanOrEqual(AT_LEAST);
    const outcomes = { ok: 0, refused: 0 };
    const wrong: unknown[] = [];
    for (const [i, body] of sent.entries()) {
      const res = await svc.request(`/api/v1/presets/generated-${format}/${route}`, { method: 'POST', json: body });
      const answer = await res.json();
      const problems = part8Problems(format, body);
      if (ownSchema(body) !== (res.status === 200)) wrong.push({ i, body, status: res.status, ownSchema: ownSchema.errors });
      if (problems.length > 0) {
        outcomes.refused++;
        const paths = res.status === 400 ? (answer.error.metadata.errors as Array<{ path: string }>).map((e) => e.path).sort() : null;
        if (res.status !== 400 || JSON.stringify(paths) !== JSON.stringify(problems))
          wrong.push({ i, body, status: res.status, paths, expected: problems });
      } else {
        outcomes.ok++;
        const version = res.status === 200 ? answer.data.designated_version : undefined;
        const expected = { config: expectedConfig(format, body), system_prompt: expectedSystemPrompt(format, body) };
        if (res.status !== 200 || !isDeepEqual({ config: version.config, system_prompt: version.system_prompt }, expected)) {
          wrong.push({ i, body, status: res.status, answer, expected });
        }
      }
      if (wrong.length >= 3) break;
    }
    expect(wrong).toEqual([]);
    // Both answers were exercised, not only one.
    expect(outcomes.ok).toBeGreaterThan(AT_LEAST / 3);
    if (format === 'chat_completions') expect(outcomes.refused).toBeGreaterThan(10);
  }, 60_000);
});

const isDeepEqual = (a: unknown, b: unknown) => {
  try {
    expect(a).toEqual(b);
    return true;
  } catch {
    return false;
  }
};
