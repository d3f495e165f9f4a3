import { STATUS_CODES } from 'node:http';
import * as t from 'io-ts';
import { integer } from '../formats/codecs';
import { MAX_LISTED_PROBLEMS, problemsMetadata, type ValidationProblem } from '../validation';

/**
 * Errors the API answers with, always in one envelope:
 * `{"error":{"code":<status>,"message":"...","metadata":{...}}}`.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    message: string,
    readonly metadata: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** One problem with a request, at a JSON path (`$.messages[0].role`) or a parameter's name. */
const Problem = t.type({ path: t.string, message: t.string }, 'Problem');

/**
 * The one error envelope. `metadata` is free-form; the keys below are the ones some errors carry
 * (`errors` and `truncated` on a 400 that lists problems).
 */
export const ErrorEnvelope = t.type(
  {
    error: t.type({
      code: integer,
      message: t.string,
      metadata: t.intersection([
        t.UnknownRecord,
        t.partial({
          errors: t.array(Problem),
          truncated: t.boolean,
          /** What kind of refusal it is, for a program to tell (`preset_archived`, `variables_invalid`, `template_runaway`, …). */
          reason: t.string,
          required_scope: t.string,
          limit_bytes: integer,
          limit_per_minute: integer,
          retry_after_seconds: integer,
        }),
      ]),
    }),
  },
  'Error',
);
export type ErrorEnvelope = t.TypeOf<typeof ErrorEnvelope>;

export const envelope = (status: number, message: string, metadata: Record<string, unknown> = {}): ErrorEnvelope => ({
  error: { code: status, message, metadata: metadata as ErrorEnvelope['error']['metadata'] },
});

export const defaultMessage = (status: number): string => STATUS_CODES[status] ?? 'Error';

export { MAX_LISTED_PROBLEMS };

export const badRequest = (message: string, problems?: ValidationProblem[]) =>
  new ApiError(400, message, problems ? problemsMetadata(problems) : {});

export const notFound = (message: string) => new ApiError(404, message);
