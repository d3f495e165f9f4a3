import { call as plainCall, type Answer } from '#scripts/serviceProcess';
import { checkExchange } from './contract';

/** The real service as a child process: shared with the crash test (scripts/serviceProcess.ts). */
export * from '#scripts/serviceProcess';

/**
 * One request on its own connection, as scripts/serviceProcess.ts makes it; in tests every answer
 * must also conform to the service's OpenAPI document (and, for presets, to OpenRouter's reference).
 */
export const call = async (...args: Parameters<typeof plainCall>): Promise<Answer> => {
  const [, method, path] = args;
  const answer = await plainCall(...args);
  checkExchange({
    method,
    url: path,
    status: answer.status,
    body: answer.text,
    header: (name) => {
      const value = answer.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : value;
    },
  });
  return answer;
};
