import getRawBody from 'raw-body';
import sjson from 'secure-json-parse';
import type { Middleware } from 'koa';
import { ApiError, badRequest } from '../errors';
import type { AppContext, AppState } from '../types';
import { takeWorkspaceField } from './workspace';

/**
 * Reads a JSON request body into `ctx.state.body`: only `application/json` in UTF-8 (415
 * otherwise), at most `limit` bytes (413, checked before reading when Content-Length says so),
 * valid UTF-8 and valid JSON (400), no `__proto__` or `constructor.prototype` keys anywhere (400:
 * they are never stored), and nested at most MAX_DEPTH deep (400).
 */
export const MAX_DEPTH = 128;
const utf8 = new TextDecoder('utf-8', { fatal: true });

export const jsonBody =
  (limit: number): Middleware<AppState, AppContext> =>
  async (ctx, next) => {
    // The header as clients usually send it is taken as it is; any other is parsed (type-is).
    if (ctx.get('Content-Type') !== 'application/json') {
      if (!ctx.request.is('application/json')) {
        throw new ApiError(415, 'the body must be JSON, sent with "Content-Type: application/json"');
      }
      const charset = ctx.request.charset;
      if (charset && charset.toLowerCase() !== 'utf-8') throw new ApiError(415, `charset ${charset} is not supported; send UTF-8`);
    }
    const length = ctx.request.length;
    if (length !== undefined && length > limit) throw tooLarge(limit);
    let raw: Buffer;
    try {
      raw = await getRawBody(ctx.req, { length, limit });
    } catch (error) {
      const type = (error as { type?: string }).type;
      if (type === 'entity.too.large') throw tooLarge(limit);
      if (type === 'request.aborted' || type === 'request.size.invalid') throw badRequest('the request body was cut short');
      throw error;
    }
    let text: string;
    try {
      text = utf8.decode(raw);
    } catch {
      throw badRequest('the body is not valid UTF-8');
    }
    try {
      ctx.state.body = sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
    } catch (error) {
      if (/prototype/i.test((error as Error).message))
        throw badRequest('the body contains a forbidden key (__proto__ or constructor.prototype)');
      throw badRequest(`the body is not valid JSON: ${(error as Error).message}`);
    }
    const problem = shapeProblem(ctx.state.body, MAX_DEPTH);
    if (problem === 'depth') throw badRequest(`the body is nested deeper than ${MAX_DEPTH} levels`);
    if (problem === 'nonFinite')
      throw badRequest('the body contains a number too large to represent (such as 1e400); numbers must be finite');
    takeWorkspaceField(ctx);
    await next();
  };

const tooLarge = (limit: number) => new ApiError(413, `the body is larger than ${limit} bytes`, { limit_bytes: limit });

/**
 * One walk over the parsed body for what JSON.parse lets through: nesting past `max` levels, and
 * numbers like 1e400 that it reads as Infinity (JSON.stringify would store them as null).
 * Iterative, so a hostile body cannot overflow the stack here.
 */
const shapeProblem = (value: unknown, max: number): 'depth' | 'nonFinite' | null => {
  // Two stacks side by side rather than a [value, depth] pair per value: no allocation per value.
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (typeof v === 'number' && !Number.isFinite(v)) return 'nonFinite';
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return 'depth';
    if (Array.isArray(v)) {
      for (const child of v) {
        values.push(child);
        depths.push(depth + 1);
      }
    } else {
      for (const key in v) {
        values.push((v as Record<string, unknown>)[key]);
        depths.push(depth + 1);
      }
    }
  }
  return null;
};
