import fc from 'fast-check';
import * as E from 'fp-ts/Either';
import { toDraft } from '#src/formats';
import { fieldsOf } from '#src/formats/persistedFields';
import { SOURCE_FORMATS } from '#src/presets/events';
import { draftOf, MINIMAL, problemsOf } from './helpers';

describe('toDraft', () => {
  it.each(SOURCE_FORMATS)('%s: rejects a body that is not a JSON object, at $', (format) => {
    for (const body of [null, [], [MINIMAL[format]], 'text', 42, true, undefined]) {
      const problems = problemsOf(format, body);
      expect(problems).toHaveLength(1);
      expect(problems[0]!.path).toBe('$');
      expect(problems[0]!.message).toMatch(/^expected JSON object, got /);
    }
  });

  it.each(SOURCE_FORMATS)('%s: ignores unknown fields, without error and without keeping them', (format) => {
    const body = { ...MINIMAL[format], model: 'm', frobnicate: { x: 1 }, __proto__x: 1, n: Infinity };
    expect(draftOf(format, body)).toEqual({ config: { model: 'm' }, systemPrompt: '' });
  });

  it.each(SOURCE_FORMATS)('%s: leaves a field set to null out of config', (format) => {
    const body = { ...MINIMAL[format], model: 'm', route: null, top_p: 0.5 };
    expect(draftOf(format, body).config).toEqual({ model: 'm', top_p: 0.5 });
  });

  it('keeps falsy values that are set', () => {
    const body = { messages: [], temperature: 0, parallel_tool_calls: false, stop: '', model: '' };
    expect(draftOf('chat_completions', body).config).toEqual({ temperature: 0, parallel_tool_calls: false, stop: '', model: '' });
  });

  it('treats a JSON "__proto__" key as an unknown field', () => {
    const body = JSON.parse('{"messages": [], "__proto__": {"model": "evil"}}');
    expect(draftOf('chat_completions', body).config).toEqual({});
  });

  it('does not change the body it is given', () => {
    const body = { messages: [{ role: 'system', content: [{ type: 'text', text: 'x' }] }], stop: ['a'] };
    const before = JSON.stringify(body);
    draftOf('chat_completions', body);
    expect(JSON.stringify(body)).toBe(before);
  });
});

describe('toDraft, for any JSON body', () => {
  const NEVER = ['messages', 'input', 'prompt', 'stream', 'system', 'instructions'];
  const check = (format: (typeof SOURCE_FORMATS)[number], body: unknown) => {
    const result = toDraft(format, body); // must not throw
    if (E.isRight(result)) {
      const allowed = fieldsOf(format, 'config');
      for (const key of Object.keys(result.right.config)) {
        expect(allowed).toContain(key);
        expect(NEVER).not.toContain(key);
      }
      expect(typeof result.right.systemPrompt).toBe('string');
    } else {
      expect(result.left.length).toBeGreaterThan(0);
      for (const p of result.left) expect(p.path.startsWith('$')).toBe(true);
    }
  };

  it('never throws, and keeps only config fields of the table', () => {
    fc.assert(fc.property(fc.constantFrom(...SOURCE_FORMATS), fc.jsonValue(), check), { numRuns: 500 });
  });

  it('also when the body uses the known field names', () => {
    const names = [...new Set(SOURCE_FORMATS.flatMap((f) => fieldsOf(f))), 'unknown_field'];
    const body = (format: (typeof SOURCE_FORMATS)[number]) =>
      fc.dictionary(fc.constantFrom(...names), fc.jsonValue({ maxDepth: 2 })).map((d) => ({ ...MINIMAL[format], ...d }));
    fc.assert(
      fc.property(
        fc.constantFrom(...SOURCE_FORMATS).chain((f) => fc.tuple(fc.constant(f), body(f))),
        ([f, b]) => check(f, b),
      ),
      {
        numRuns: 1000,
      },
    );
  });
});
