import { problemsMetadata, type ValidationProblem } from '../validation';

/**
 * Why a request could not be resolved, as the API's error envelope says it: the HTTP route answers
 * it as `{"error":{"code","message","metadata"}}`, the in-process client throws it. One shape, so
 * both say exactly the same thing for the same state.
 */
export interface ResolveFailure {
  status: 400 | 404 | 409;
  message: string;
  metadata: Record<string, unknown>;
}

export const invalid = (message: string, problems: ValidationProblem[]): ResolveFailure => ({
  status: 400,
  message,
  metadata: problemsMetadata(problems),
});

export const missing = (message: string): ResolveFailure => ({ status: 404, message, metadata: {} });

/** The preset is there but may not be used as it is; `reason` says why, for a program to tell. */
export const refused = (message: string, reason: string): ResolveFailure => ({ status: 409, message, metadata: { reason } });
