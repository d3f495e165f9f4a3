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
 */
export type Pin = { kind: 'designated' } | { kind: 'version'; number: number } | { kind: 'latest' } | { kind: 'label'; label: string };

export interface PresetReference {
  slug: string;
  pin: Pin;
  /** Where the reference was: `model` (forms 1 and 2) or `preset` (form 3). */
  in: 'model' | 'preset';
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
    if (/^\d+$/.test(pin)) {
      if (VERSION_NUMBER.test(pin)) parsed = { kind: 'version', number: Number(pin) };
      else problems.push({ path: where, message: `@${pin} is not a version: a version is a whole number from 1, without leading zeros` });
    } else if (pin === 'latest') parsed = { kind: 'latest' };
    else if (LABEL.test(pin)) parsed = { kind: 'label', label: pin };
    else {
      problems.push({
        path: where,
        message:
          pin === ''
            ? 'nothing follows "@": name a version number, latest or a label'
            : `@${pin.length > 40 ? `${pin.slice(0, 40)}…` : pin} is neither a version number, latest nor a label (1–36 of a–z 0–9 _ . -, starting with a letter or digit)`,
      });
    }
  }
  return problems.length > 0 ? problems : { slug, pin: parsed };
};

export type ReferenceProblem = { kind: 'none' } | { kind: 'malformed'; problems: ValidationProblem[] };

/**
 * The preset a request body names, read from `model` and `preset` (already known to be a string or
 * null when present). Pure: no lookup, only the text.
 */
export const parsePresetReference = (body: { model?: unknown; preset?: unknown }): E.Either<ReferenceProblem, PresetReference> => {
  const model = typeof body.model === 'string' ? body.model : undefined;
  const mark = model === undefined ? -1 : model.indexOf(PRESET_MARK);
  const preset = typeof body.preset === 'string' ? body.preset : undefined;
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
