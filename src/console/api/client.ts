/**
 * Calls to the public API with the signed-in key (Authorization: Bearer). Every failure becomes an
 * ApiFailure whose `message` is written for the person using the console.
 */
export interface Answer<T> {
  status: number;
  body: T;
  /** The preset's ETag, on the answers that have one: sent back as If-Match by the next write. */
  etag: string | null;
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  json?: unknown;
  /** A preset write only happens if the preset is still at this ETag (412 otherwise). */
  ifMatch?: string | null;
  /** Why the change is made: sent as Preset-Note (percent-encoded). */
  note?: string;
  signal?: AbortSignal;
}

interface ErrorEnvelope {
  error?: { code?: number; message?: string; metadata?: Record<string, unknown> };
}

export class ApiFailure extends Error {
  override readonly name = 'ApiFailure';
  constructor(
    /** The HTTP status; 0 when the service could not be reached. */
    readonly status: number,
    message: string,
    /** The envelope's metadata, such as the list of problems of a 400. */
    readonly metadata: Record<string, unknown> = {},
  ) {
    super(message);
  }

  /** The problems a 400 lists, as "path: message" lines. */
  get problems(): string[] {
    const errors = this.metadata.errors;
    if (!Array.isArray(errors)) return [];
    return errors.map((e: { path?: unknown; message?: unknown }) => `${String(e.path)}: ${String(e.message)}`);
  }
}

export const STALE_MESSAGE = 'Someone else changed this preset meanwhile: reload and decide again.';

/** The message a person reads for a failed call: plain words for the statuses they can act on. */
export const explain = (status: number, serverMessage: string, metadata: Record<string, unknown>): string => {
  switch (status) {
    case 401:
      return 'This API key was not accepted: it is unknown or no longer valid. Sign in with a valid key.';
    case 403: {
      // A missing scope is said in the console's words; any other refusal (a protected label, a
      // workspace the key does not hold, a proposal not yours to decide) in the service's own.
      if (typeof metadata.required_scope !== 'string') return `Not allowed: ${serverMessage}.`;
      return `This API key is not allowed to do this: it lacks the ${metadata.required_scope} scope. Ask for a key that has it.`;
    }
    case 412:
      return STALE_MESSAGE;
    case 429:
      return 'Too many requests with this key for now: wait a little and try again.';
    default:
      if (status >= 500) return `The service failed to answer (${status}): try again in a moment. ${serverMessage}`;
      return serverMessage.charAt(0).toUpperCase() + serverMessage.slice(1);
  }
};

export const callApi = async <T>(key: string, path: string, options: CallOptions = {}): Promise<Answer<T>> => {
  const headers: Record<string, string> = { Authorization: `Bearer ${key}`, Accept: 'application/json' };
  if (options.json !== undefined) headers['Content-Type'] = 'application/json';
  if (options.ifMatch) headers['If-Match'] = options.ifMatch;
  if (options.note) headers['Preset-Note'] = encodeURIComponent(options.note);
  let res: Response;
  try {
    res = await fetch(path, {
      method: options.method ?? 'GET',
      headers,
      body: options.json === undefined ? undefined : JSON.stringify(options.json),
      signal: options.signal,
      cache: 'no-store',
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiFailure(0, 'The service could not be reached: check the connection and try again.');
  }
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: a proxy's page, say; reported below by status
  }
  if (!res.ok) {
    const error = (body as ErrorEnvelope | null)?.error ?? {};
    const metadata = error.metadata ?? {};
    throw new ApiFailure(res.status, explain(res.status, error.message ?? res.statusText, metadata), metadata);
  }
  return { status: res.status, body: body as T, etag: res.headers.get('ETag') };
};
