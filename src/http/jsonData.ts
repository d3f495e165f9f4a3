import type { ParameterizedContext } from 'koa';

/**
 * Answers `{"data": <document>}` with a document that is already JSON (the read model stores it
 * so): a string body costs a copy, where an object would be parsed and serialized again.
 */
export const sendDataJson = (ctx: ParameterizedContext, json: string): void => {
  ctx.type = 'application/json';
  ctx.body = `{"data":${json}}`;
};
