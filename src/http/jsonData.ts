import type { ParameterizedContext } from 'koa';

/**
 * Answers `{"data": <document>}` with a document that is already JSON (the read model stores it
 * so): a string body costs a copy, where an object would be parsed and serialized again.
 */
export const sendDataJson = (ctx: ParameterizedContext, json: string): void => {
  ctx.set('Content-Type', 'application/json; charset=utf-8'); // what `ctx.type = 'json'` sets, without the lookup
  ctx.body = `{"data":${json}}`;
};
