import * as E from 'fp-ts/Either';
import { LABEL, SLUG } from '../presets/names';
import type { ValidationProblem } from '../validation';

/**
 * How a request names the preset to use: OpenRouter's three forms, each with an optional pin.
 *  1. `"model": "@preset/support-bot"`: the preset supplies the model;
 *  2. `"model": "openai/gpt-4o@preset/support-bot"`: the model given overrides the preset's;
 *  3. `"preset": "support-bot"` beside the body's own `model` (or without one: the preset's).
 * After the slug, `@3` pins version 3, `@latest` the newest version, `@production` a label;
 * without a pin the designated version is used.
 * A responses body may name it as OpenAI names a stored prompt instead, like form 3:
 *  4. `"prompt": {"id": "support-bot", "version": "3"}` (`id` may be `@preset/support-bot`;
 *     `version` a number, `latest` or a label).
 */
export type Pin = { kind: 'designated' } | { kind: 'version'; number: number } | { kind: 'latest' } | { kind: 'label'; label: string };

export interface PresetReference {
  slug: string;
  pin: Pin;
  /** Where the reference was: `model` (forms 1 and 2), `preset` (form 3) or `prompt` (form 4). */
  in: 'model' | 'preset' | 'prompt';
  /** Form 2's model, which overrides the preset's. */
  model?: string;
}

export const PRESET_MARK = '@preset/';
const VERSION_NUMBER = /^[1-9]\d{0,8}$/;
const DESIGNATED: Pin = { kind: 'designated' };

/** `slug[@pin]`, or the problems with it (their paths point at `where`). */
const parseSlugAndPin = (text: string, where: string): { slug: string; pin: Pin } | ValidationProblem[] => {
  const at = text.indexOf('@');
  const slug = at < 0 ? text : text.slice(0, at);
  const pin = at < 0 ? undefined : text.slice(at + 1);
  const problems: ValidationProblem[] = [];
  if (!SLUG.test(slug)) {
    problems.push({
      path: where,
      message: `${JSON.stringify(slug)} is not a preset slug: 1–128 characters of A–Z a–z 0–9 . _ ~ -, starting with a letter or digit`,
    });
  }
  let parsed: Pin = DESIGNATED;
  if (pin !== undefined) {
    const read = parsePin(pin, where, '@');
    if ('message' in read) problems.push(read);
    else parsed = read;
  }
  return problems.length > 0 ? problems : { slug, pin: parsed };
};

/** A pin's text (after `@`, or a prompt's `version`): a version number, `latest` or a label. */
const parsePin = (pin: string, where: string, mark: string): Pin | ValidationProblem => {
  if (/^\d+$/.test(pin)) {
    return VERSION_NUMBER.test(pin)
      ? { kind: 'version', number: Number(pin) }
      : { path: where, message: `${mark}${pin} is not a version: a version is a whole number from 1, without leading zeros` };
  }
  if (pin === 'latest') return { kind: 'latest' };
  if (LABEL.test(pin)) return { kind: 'label', label: pin };
  return {
    path: where,
    message:
      pin === ''
        ? mark === ''
          ? 'is empty: name a version number, latest or a label'
          : `nothing follows "${mark}": name a version number, latest or a label`
        : `${mark}${pin.length > 40 ? `${pin.slice(0, 40)}…` : pin} is neither a version number, latest nor a label (1–36 of a–z 0–9 _ . -, starting with a letter or digit)`,
  };
};

export type ReferenceProblem = { kind: 'none' } | { kind: 'malformed'; problems: ValidationProblem[] };

/**
 * The preset a request body names, read from `model` and `preset` (already known to be a string or
 * null when present). Pure: no lookup, only the text.
 */
export const parsePresetReference = (body: {
  model?: unknown;
  preset?: unknown;
  /** A responses body's `prompt` (an object when present: the body's codec says so); other formats pass none. */
  prompt?: unknown;
}): E.Either<ReferenceProblem, PresetReference> => {
  const model = typeof body.model === 'string' ? body.model : undefined;
  const mark = model === undefined ? -1 : model.indexOf(PRESET_MARK);
  const preset = typeof body.preset === 'string' ? body.preset : undefined;
  if (typeof body.prompt === 'object' && body.prompt !== null) {
    const named = mark >= 0 ? 'model' : preset !== undefined ? 'preset' : undefined;
    if (named) {
      return E.left({
        kind: 'malformed',
        problems: [{ path: '$.prompt', message: `the preset is named twice, in ${named} and in prompt: name it once` }],
      });
    }
    return promptReference(body.prompt as { id: string; version?: string | number | null });
  }
  if (mark >= 0 && preset !== undefined) {
    return E.left({
      kind: 'malformed',
      problems: [{ path: '$.preset', message: 'the preset is named twice, in model and in preset: name it once' }],
    });
  }
  if (mark < 0 && preset === undefined) return E.left({ kind: 'none' });
  const parsed = mark >= 0 ? parseSlugAndPin(model!.slice(mark + PRESET_MARK.length), '$.model') : parseSlugAndPin(preset!, '$.preset');
  if (Array.isArray(parsed)) return E.left({ kind: 'malformed', problems: parsed });
  if (mark < 0) return E.right({ slug: parsed.slug, pin: parsed.pin, in: 'preset' });
  const given = model!.slice(0, mark);
  return E.right(
    given === '' ? { slug: parsed.slug, pin: parsed.pin, in: 'model' } : { slug: parsed.slug, pin: parsed.pin, in: 'model', model: given },
  );
};

/** Form 4: `prompt.id` the slug (or `@preset/<slug>`, with a pin or not), `prompt.version` the pin. */
const promptReference = (prompt: { id: string; version?: string | number | null }): E.Either<ReferenceProblem, PresetReference> => {
  const id = prompt.id.startsWith(PRESET_MARK) ? prompt.id.slice(PRESET_MARK.length) : prompt.id;
  const parsed = parseSlugAndPin(id, '$.prompt.id');
  if (Array.isArray(parsed)) return E.left({ kind: 'malformed', problems: parsed });
  if (prompt.version === undefined || prompt.version === null) return E.right({ slug: parsed.slug, pin: parsed.pin, in: 'prompt' });
  if (parsed.pin.kind !== 'designated') {
    return E.left({
      kind: 'malformed',
      problems: [{ path: '$.prompt.version', message: 'the version is named twice, in prompt.id and in prompt.version: name it once' }],
    });
  }
  const pin = parsePin(String(prompt.version), '$.prompt.version', '');
  return 'message' in pin ? E.left({ kind: 'malformed', problems: [pin] }) : E.right({ slug: parsed.slug, pin, in: 'prompt' });
};
