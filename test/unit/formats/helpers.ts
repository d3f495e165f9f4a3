import * as E from 'fp-ts/Either';
import { toDraft, type FormatName, type PresetDraft } from '#src/formats';
import type { ValidationProblem } from '#src/validation';

/** The smallest body each format accepts, to add one field to. */
export const MINIMAL: Record<FormatName, Record<string, unknown>> = {
  chat_completions: { messages: [] },
  messages: { model: 'claude-sonnet-4-5', messages: [] },
  responses: {},
};

export const draftOf = (format: FormatName, body: unknown): PresetDraft => {
  const result = toDraft(format, body);
  if (E.isLeft(result)) throw new Error(`expected a draft, got problems ${JSON.stringify(result.left)}`);
  return result.right;
};

export const problemsOf = (format: FormatName, body: unknown): ValidationProblem[] => {
  const result = toDraft(format, body);
  return E.isLeft(result) ? result.left : [];
};

export const withField = (format: FormatName, field: string, value: unknown) => ({ ...MINIMAL[format], [field]: value });

/** The paths of the problems of a body that is the minimal one plus `field: value`. */
export const pathsFor = (format: FormatName, field: string, value: unknown): string[] =>
  problemsOf(format, withField(format, field, value)).map((p) => p.path);

export const repeat = (n: number, ch = 'a') => ch.repeat(n);
export const pairs = (n: number): Record<string, string> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, `v${i}`]));
