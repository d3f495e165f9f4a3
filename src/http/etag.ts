import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import { ApiError, badRequest } from './errors';

/**
 * A preset's ETag is its stream revision as a quoted decimal: `"3"`. It is strong (the revision
 * names exactly one state of the preset), so If-Match can hand it to the command handler as the
 * expected revision, which the append checks atomically.
 */
export const etagOf = (revision: bigint): string => `"${revision}"`;

const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"$/;
const REVISION = /^(0|[1-9]\d{0,18})$/;

/**
 * The revision an If-Match header requires, or undefined for none (absent, or `*`: any current
 * state). One ETag only; a well-formed tag that is not one of ours (weak, or not a revision)
 * can never match under the strong comparison If-Match uses, so it is a 412 at once.
 */
export const parseIfMatch = (header: string): bigint | undefined => {
  const value = header.trim();
  if (value === '' || value === '*') return undefined;
  const match = ENTITY_TAG.exec(value);
  if (!match) {
    throw badRequest('If-Match must be one ETag as sent in the ETag header, such as "3", or *', [
      { path: 'If-Match', message: `got ${JSON.stringify(value.slice(0, 80))}` },
    ]);
  }
  const tag = match[2]!;
  if (match[1] || !REVISION.test(tag)) throw new ApiError(412, 'If-Match names no revision of this preset; read it again');
  return BigInt(tag);
};

const LISTED_TAG = /(?:W\/)?"([\x21\x23-\x7e\x80-\xff]*)"/g;

/**
 * Whether If-None-Match names the current entity tag (RFC 9110 §13.1.2): `*`, or a list holding
 * a tag equal to it under the weak comparison. Then a GET answers 304. (Not `fresh`, Koa's: it
 * ignores the condition when the request says `Cache-Control: no-cache`, which Node's fetch
 * sends with every conditional request, and an origin server must still evaluate it.)
 */
export const ifNoneMatchNames = (header: string, etag: string): boolean => {
  const value = header.trim();
  if (value === '') return false;
  if (value === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  for (const match of value.matchAll(LISTED_TAG)) if (`"${match[1]}"` === opaque) return true;
  return false;
};

/**
 * Sets the answer's ETag and, when the request's If-None-Match names it (or is `*`), answers 304
 * without a body (RFC 9110). True when it answered 304: the caller sends nothing more.
 */
export const answeredNotModified = (ctx: Pick<Context, 'res' | 'get' | 'status'>, etag: string): boolean => {
  ctx.res.setHeader('ETag', etag); // as ctx.set would, without its arrays (jsonData.ts)
  if (!ifNoneMatchNames(ctx.get('If-None-Match'), etag)) return false;
  ctx.status = 304;
  return true;
};

/** A strong ETag naming these exact bytes (for files and documents that do not come from a stream). */
export const contentEtag = (content: string | Buffer): string =>
  `"${createHash('sha256').update(content).digest('base64url').slice(0, 27)}"`;
