import type { ParameterizedContext } from 'koa';

/**
 * What `ctx.type = 'json'` sets, without the lookup; set on `ctx.res` as `ctx.set` would, without
 * the arrays Koa's `set` makes for every header, which a read's answer noticeably paid for
 * (docs/performance.md, the read path).
 */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Answers `{"data": <document>}` with a document that is already JSON (the read model stores it
 * so): a string body costs a copy, where an object would be parsed and serialized again.
 */
export const sendDataJson = (ctx: ParameterizedContext, json: string): void => {
  ctx.res.setHeader('Content-Type', JSON_TYPE);
  ctx.body = `{"data":${json}}`;
};

/**
 * The answer's bytes per document object, made at its second answer: held as long as whoever
 * holds the document (the document cache) does. `null`: answered once, as text.
 */
const answers = new WeakMap<{ json: string }, Buffer | null>();

/**
 * sendDataJson for a document object that a cache hands out again and again: from its second
 * answer on, its answer's UTF-8 bytes are made once, so a read of a hot preset neither encodes the
 * text nor measures its length again. The first answer is text, as sendDataJson's: most documents
 * a cache miss brings in are answered once and evicted, and bytes made for each of them would
 * outlive the read (a Buffer's memory is outside V8's heap and is freed only when the collector
 * reaches the Buffer, after the document has aged into the old generation: under random reads it
 * held 25–30 MB; docs/performance.md). The same bytes and headers as sendDataJson either way.
 */
export const sendDocument = (ctx: ParameterizedContext, document: { json: string }): void => {
  const bytes = answers.get(document);
  if (bytes === undefined) {
    answers.set(document, null);
    sendDataJson(ctx, document.json);
    return;
  }
  ctx.res.setHeader('Content-Type', JSON_TYPE);
  if (bytes) ctx.body = bytes;
  else answers.set(document, (ctx.body = Buffer.from(`{"data":${document.json}}`, 'utf8')));
};
