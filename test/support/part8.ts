import type { FormatName } from '#src/formats';

/**
 * The limits of part 8 of the specification (and the bracket rule of 4.3 for responses
 * metadata), written from the spec's table, not from the service's codecs: an oracle for tests
 * that send bodies valid under OpenRouter's reference, which states none of these ranges.
 * Returns the JSON paths the service must name in its 400, or [] for a body within them.
 */
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (k: string) => (IDENTIFIER.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`);
const chars = (s: string) => [...s].length;
const outside = (v: unknown, lo: number, hi: number) => typeof v === 'number' && (v < lo || v > hi);

export const part8Problems = (format: FormatName, body: Record<string, unknown>): string[] => {
  const paths: string[] = [];
  if (typeof body.session_id === 'string' && chars(body.session_id) > 256) paths.push('$.session_id');
  if (format !== 'chat_completions' && typeof body.user === 'string' && chars(body.user) > 256) paths.push('$.user');
  const metadata = body.metadata;
  if (format !== 'messages' && metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata)) {
    const entries = Object.entries(metadata as Record<string, unknown>);
    if (entries.length > 16) paths.push('$.metadata');
    else {
      for (const [k, v] of entries) {
        const badKey = chars(k) > 64 || (format === 'responses' && /[[\]]/.test(k));
        if (badKey || (typeof v === 'string' && chars(v) > 512)) paths.push(`$.metadata${key(k)}`);
      }
    }
  }
  if (format === 'chat_completions') {
    if (Array.isArray(body.stop) && body.stop.length > 4) paths.push('$.stop');
    for (const field of ['frequency_penalty', 'presence_penalty']) if (outside(body[field], -2, 2)) paths.push(`$.${field}`);
    if (outside(body.temperature, 0, 2)) paths.push('$.temperature');
    if (outside(body.top_p, 0, 1)) paths.push('$.top_p');
    if (outside(body.top_logprobs, 0, 20)) paths.push('$.top_logprobs');
  }
  return paths.sort();
};

/** The same body brought within part 8 (for tests that want the 200 path too): out-of-range numbers clamped, long lists cut. */
export const withinPart8 = (format: FormatName, body: Record<string, unknown>): Record<string, unknown> => {
  if (format !== 'chat_completions') return body;
  const b = { ...body };
  const clamp = (field: string, lo: number, hi: number) => {
    if (typeof b[field] === 'number') b[field] = Math.min(hi, Math.max(lo, b[field] as number));
  };
  clamp('frequency_penalty', -2, 2);
  clamp('presence_penalty', -2, 2);
  clamp('temperature', 0, 2);
  clamp('top_p', 0, 1);
  clamp('top_logprobs', 0, 20);
  if (Array.isArray(b.stop)) b.stop = b.stop.slice(0, 4);
  return b;
};
