import type { ParameterizedContext } from 'koa';

const JSON_TYPE = 'application/json; charset=utf-8'; // what `ctx.type = 'json'` sets, without the lookup

/**
 * Answers `{"data": <document>}` with a document that is already JSON (the read model stores it
 * so): a string body costs a copy, where an object would be parsed and serialized again.
 */
export const sendDataJson = (ctx: ParameterizedContext, json: string): void => {
  ctx.set('Content-Type', JSON_TYPE);
  ctx.body = `{"data":${json}}`;
};

/** The answer's bytes per document object: held as long as whoever holds the document (the document cache) does. */
const answers = new WeakMap<{ json: string }, Buffer>();

/**
 * sendDataJson for a document object that a cache hands out again and again: its answer's UTF-8
 * bytes are made once per object, so a read of a cached preset neither encodes the text nor
 * measures its length again. The same bytes and headers as sendDataJson.
 */
export const sendDocument = (ctx: ParameterizedContext, document: { json: string }): void => {
  let bytes = answers.get(document);
  if (!bytes) answers.set(document, (bytes = Buffer.from(`{"data":${document.json}}`, 'utf8')));
  ctx.set('Content-Type', JSON_TYPE);
  ctx.body = bytes;
};
