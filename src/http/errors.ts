import { STATUS_CODES } from 'node:http';
import type { ValidationProblem } from '../validation';

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

export interface ErrorEnvelope {
  error: { code: number; message: string; metadata: Record<string, unknown> };
}

export const envelope = (status: number, message: string, metadata: Record<string, unknown> = {}): ErrorEnvelope => ({
  error: { code: status, message, metadata },
});

export const defaultMessage = (status: number): string => STATUS_CODES[status] ?? 'Error';

/** At most this many problems are listed (validation also stops early on long lists); `truncated` says when there may be more. */
export const MAX_LISTED_PROBLEMS = 100;

export const badRequest = (message: string, problems?: ValidationProblem[]) =>
  new ApiError(400, message, problems
    ? { errors: problems.slice(0, MAX_LISTED_PROBLEMS), truncated: problems.length >= MAX_LISTED_PROBLEMS }
    : {});

export const notFound = (message: string) => new ApiError(404, message);
