import * as E from 'fp-ts/Either';
import { parsePresetReference } from '#src/resolve/reference';

const parsed = (body: { model?: unknown; preset?: unknown }) => {
  const result = parsePresetReference(body);
  if (E.isLeft(result)) throw new Error(`expected a reference, got ${JSON.stringify(result.left)}`);
  return result.right;
};
const problems = (body: { model?: unknown; preset?: unknown }) => {
  const result = parsePresetReference(body);
  if (E.isRight(result)) throw new Error(`expected a problem, got ${JSON.stringify(result.right)}`);
  return result.left;
};

describe('naming a preset: the three forms', () => {
  it('"@preset/{slug}" in model: the preset supplies the model', () => {
    expect(parsed({ model: '@preset/support-bot' })).toEqual({ slug: 'support-bot', pin: { kind: 'designated' }, in: 'model' });
  });

  it('"{model}@preset/{slug}" in model: the model given overrides the preset\'s', () => {
    expect(parsed({ model: 'openai/gpt-4o@preset/support-bot' })).toEqual({
      slug: 'support-bot',
      pin: { kind: 'designated' },
      in: 'model',
      model: 'openai/gpt-4o',
    });
    // Model names may hold a colon (variants) or a dot: everything before the mark is the model.
    expect(parsed({ model: 'anthropic/claude-3.5-sonnet:beta@preset/a.b_c~d' })).toMatchObject({
      slug: 'a.b_c~d',
      model: 'anthropic/claude-3.5-sonnet:beta',
    });
  });

  it('"preset": "{slug}" beside the body\'s own model, or without one', () => {
    expect(parsed({ model: 'openai/gpt-4o', preset: 'support-bot' })).toEqual({
      slug: 'support-bot',
      pin: { kind: 'designated' },
      in: 'preset',
    });
    expect(parsed({ preset: 'support-bot' })).toEqual({ slug: 'support-bot', pin: { kind: 'designated' }, in: 'preset' });
  });
});

describe('pins', () => {
  it.each([
    ['@preset/support-bot@3', { kind: 'version', number: 3 }],
    ['@preset/support-bot@123456789', { kind: 'version', number: 123456789 }],
    ['@preset/support-bot@latest', { kind: 'latest' }],
    ['@preset/support-bot@production', { kind: 'label', label: 'production' }],
    ['openai/gpt-4o@preset/support-bot@staging', { kind: 'label', label: 'staging' }],
    ['@preset/support-bot@v1.2_rc-1', { kind: 'label', label: 'v1.2_rc-1' }],
  ])('%s', (model, pin) => {
    expect(parsed({ model }).pin).toEqual(pin);
  });

  it('the preset field takes the same pins', () => {
    expect(parsed({ preset: 'support-bot@staging' }).pin).toEqual({ kind: 'label', label: 'staging' });
    expect(parsed({ preset: 'support-bot@7' }).pin).toEqual({ kind: 'version', number: 7 });
    expect(parsed({ preset: 'support-bot@latest' }).pin).toEqual({ kind: 'latest' });
  });
});

describe('what is not a reference', () => {
  it('a body with neither a "@preset/" model nor a preset field names none (null is not set)', () => {
    expect(problems({ model: 'openai/gpt-4o' })).toEqual({ kind: 'none' });
    expect(problems({})).toEqual({ kind: 'none' });
    expect(problems({ model: 'openai/gpt-4o', preset: null })).toEqual({ kind: 'none' });
    // "preset" without "@" and "/" is just a model name
    expect(problems({ model: 'acme/preset-model' })).toEqual({ kind: 'none' });
  });

  it.each([
    [{ model: '@preset/' }, '$.model', /"" is not a preset slug/],
    [{ model: '@preset/.hidden' }, '$.model', /is not a preset slug/],
    [{ model: `@preset/${'a'.repeat(129)}` }, '$.model', /1–128 characters/],
    [{ model: '@preset/bot@' }, '$.model', /nothing follows "@"/],
    [{ model: '@preset/bot@0' }, '$.model', /@0 is not a version: a version is a whole number from 1/],
    [{ model: '@preset/bot@007' }, '$.model', /without leading zeros/],
    [{ model: '@preset/bot@Production' }, '$.model', /@Production is neither a version number, latest nor a label/],
    [{ model: '@preset/bot@1@2' }, '$.model', /neither a version number/],
    [{ model: '@preset/a/b' }, '$.model', /"a\/b" is not a preset slug/],
    [{ preset: '@preset/bot' }, '$.preset', /is not a preset slug/],
    [{ preset: 'bot@' }, '$.preset', /nothing follows/],
    [{ model: '@preset/bot', preset: 'bot' }, '$.preset', /named twice/],
  ])('%j is malformed, at %s', (body, path, message) => {
    const problem = problems(body);
    expect(problem.kind).toBe('malformed');
    const listed = (problem as { problems: Array<{ path: string; message: string }> }).problems;
    expect(listed.map((p) => p.path)).toContain(path);
    expect(listed.some((p) => message.test(p.message))).toBe(true);
  });

  it('lists a bad slug and a bad pin together', () => {
    const problem = problems({ model: '@preset/-x@Bad' }) as { problems: unknown[] };
    expect(problem.problems).toHaveLength(2);
  });
});
