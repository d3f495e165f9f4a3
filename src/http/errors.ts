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

export const badRequest = (message: string, problems?: ValidationProblem[]) =>
  new ApiError(400, message, problems ? { errors: problems } : {});

export const notFound = (message: string) => new ApiError(404, message);
