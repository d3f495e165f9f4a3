import { dirname, join } from 'node:path';
import { readFileSync } from 'node:fs';
import * as E from 'fp-ts/Either';
import { toDraft, type FormatName } from '#src/formats';
import { SOURCE_FORMATS } from '#src/presets/events';
import { part8Problems } from '#support/part8';
import {
  REFERENCE_FILE,
  REQUEST_SCHEMA,
  SHARED_REFERENCE_FILE,
  reference,
  referenceAjv,
  referenceFields,
  sharedReferenceExists,
  shallowSchema,
  validRequest,
} from '#support/reference';
import { MINIMAL } from '../../unit/formats/helpers';

/**
 * Each top-level field against OpenRouter's reference, read by a JSON Schema validator rather
 * than by us: for values of every kind, and every value of the field's enum, the service accepts
 * what the reference accepts at the field's own level (type, nullability, enum, const, the
 * field's own limits), and refuses what it refuses, at `$.field` — except where part 8 of the spec
 * is stricter, and the one leniency (an empty chat-completions `messages`).
 */
const PROBES: unknown[] = [null, true, false, 0, 1, -1, 0.5, 1e6, 'x', '', {}, [], ['x'], [{}], 'not-a-listed-value'];

// The smallest body valid under the reference, to set one field of.
const BASE: Record<FormatName, Record<string, unknown>> = {
  chat_completions: { messages: [{ role: 'user', content: 'hi' }] },
  messages: MINIMAL.messages,
  responses: MINIMAL.responses,
};

it('the reference copy in reference/ is the one in shared/reference/ (when that is beside the clone)', () => {
  if (!sharedReferenceExists()) return;
  expect(readFileSync(REFERENCE_FILE, 'utf8')).toBe(readFileSync(SHARED_REFERENCE_FILE, 'utf8'));
  // And the note of what OpenRouter's later documents add (delete, restore, workspace_id).
  const note = 'openrouter-presets-changes-2026-11.md';
  expect(readFileSync(join(dirname(REFERENCE_FILE), note), 'utf8')).toBe(readFileSync(join(dirname(SHARED_REFERENCE_FILE), note), 'utf8'));
});

describe.each(SOURCE_FORMATS)('%s: every field of the reference request schema, at its own level', (format) => {
  const schemas = reference().components.schemas[REQUEST_SCHEMA[format]]!.properties as Record<string, Record<string, unknown>>;
  const required = (reference().components.schemas[REQUEST_SCHEMA[format]]!.required ?? []) as string[];

  it('starts from a body valid under the reference', () => expect(validRequest(format, BASE[format])).toBe(true));

  it.each(referenceFields(format))('%s', (field) => {
    const shallow = referenceAjv().compile(shallowSchema(schemas[field]!));
    const enumValues =
      JSON.stringify(schemas[field])
        .match(/"enum":\[[^\]]*\]/g)
        ?.flatMap((m) => JSON.parse(m.slice(7)) as unknown[]) ?? [];
    const disagreements: unknown[] = [];
    for (const value of [...PROBES, ...enumValues]) {
      const body = { ...BASE[format], [field]: value };
      const result = toDraft(format, body);
      const ours = E.isRight(result)
        ? 'accepted'
        : result.left.every((p) => p.path === `$.${field}` || p.path.startsWith(`$.${field}[`) || p.path.startsWith(`$.${field}.`))
          ? 'refused'
          : 'refused elsewhere';
      const lenient = format === 'chat_completions' && field === 'messages' && Array.isArray(value) && value.length === 0;
      const part8 = part8Problems(format, body).length > 0;
      // Accepted: the reference accepts it at the field's own level (inner shapes are stored as
      // sent, so what is inside may be anything), and part 8 does too. Refused: the reference
      // refuses it (anywhere inside) or part 8 does, and the problem is at the field.
      const fine =
        ours === 'accepted' ? (shallow(value) || lenient) && !part8 : ours === 'refused' && (!validRequest(format, body) || part8);
      if (!fine) disagreements.push({ value, ours, referenceAtItsLevel: shallow(value), reference: validRequest(format, body), part8 });
    }
    expect(disagreements).toEqual([]);
  });

  it('leaves a field out of config when it is null, where the reference allows null', () => {
    const nullable = referenceFields(format).filter((f) => !required.includes(f) && validRequest(format, { ...BASE[format], [f]: null }));
    expect(nullable.length).toBeGreaterThan(3);
    const body = { ...BASE[format], ...Object.fromEntries(nullable.map((f) => [f, null])) };
    const result = toDraft(format, body);
    const base = toDraft(format, BASE[format]);
    expect(E.isRight(result) && result.right.config).toEqual(E.isRight(base) && base.right.config);
  });
});
