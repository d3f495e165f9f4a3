import * as E from 'fp-ts/Either';
import type { FormatName } from '../formats';
import type { RenderFailure } from '../templates/render';
import type { ValidationProblem } from '../validation';
import { invalid, type ResolveFailure } from './failure';

/**
 * The values a request fills its preset's template with, and where they were: LiteLLM's
 * `prompt_variables` (any format), or OpenAI's `prompt.variables` (a responses body naming its
 * preset by `prompt`), or what an in-process caller gives beside the body (`presets/client`'s
 * `resolve(format, body, { variables })`, taken as `prompt_variables`). Given twice is a 400.
 */
export interface GivenVariables {
  /** Undefined: none given. */
  values: unknown;
  /** The path problems with them start from. */
  where: string;
}

type Json = Record<string, unknown>;
const isObject = (u: unknown): u is Json => typeof u === 'object' && u !== null && !Array.isArray(u);

export const PROMPT_VARIABLES = '$.prompt_variables';
const PROMPT_DOT_VARIABLES = '$.prompt.variables';

const keyPath = (base: string, key: string) =>
  /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${base}.${key}` : `${base}[${JSON.stringify(key)}]`;

/**
 * OpenAI's variable values: a string, or an input content part. `input_text` is its text; an
 * image or a file cannot fill a text template.
 */
const fromOpenAi = (variables: Json): E.Either<ValidationProblem[], Json> => {
  let converted: Json | undefined;
  const problems: ValidationProblem[] = [];
  for (const key of Object.keys(variables)) {
    const value = variables[key];
    if (!isObject(value) || typeof value.type !== 'string' || !value.type.startsWith('input_')) continue;
    if (value.type === 'input_text' && typeof value.text === 'string') {
      converted ??= { ...variables };
      converted[key] = value.text;
    } else {
      problems.push({
        path: keyPath(PROMPT_DOT_VARIABLES, key),
        message:
          value.type === 'input_text'
            ? 'is an input_text part without a string text'
            : `is an ${value.type} part: image and file inputs are not supported as variables, only text (a string or an input_text part)`,
      });
    }
  }
  return problems.length > 0 ? E.left(problems) : E.right(converted ?? variables);
};

const twice = (message: string, path: string): E.Either<ResolveFailure, GivenVariables> =>
  E.left(invalid('the variables are given twice: give them once', [{ path, message }]));

export const variablesOf = (format: FormatName, body: Json, fromCaller?: unknown): E.Either<ResolveFailure, GivenVariables> => {
  const inBody = body.prompt_variables ?? undefined;
  const prompt = format === 'responses' && isObject(body.prompt) ? body.prompt : undefined;
  const inPrompt = prompt?.variables ?? undefined;
  if (inBody !== undefined && inPrompt !== undefined) return twice('given in prompt_variables too', PROMPT_DOT_VARIABLES);
  if (fromCaller !== undefined) {
    if (inBody !== undefined || inPrompt !== undefined) {
      return twice('given in the body and as the variables option', inPrompt !== undefined ? PROMPT_DOT_VARIABLES : PROMPT_VARIABLES);
    }
    return E.right({ values: fromCaller, where: PROMPT_VARIABLES });
  }
  if (inPrompt !== undefined) {
    const converted = fromOpenAi(inPrompt as Json);
    return E.isLeft(converted)
      ? E.left(invalid('a variable is not text', converted.left))
      : E.right({ values: converted.right, where: PROMPT_DOT_VARIABLES });
  }
  return E.right({ values: inBody, where: PROMPT_VARIABLES });
};

/** Why a version could not be rendered for a request, as the resolve endpoints answer it. */
export const renderFailure = (failure: RenderFailure, where: string, version: number, slug: string): ResolveFailure => {
  const name = `version ${version} of preset ${JSON.stringify(slug)}`;
  if (failure.reason === 'template_invalid') {
    return {
      status: 409,
      message: `${name} has a template this service cannot render; make a new version`,
      metadata: { reason: failure.reason, errors: failure.problems },
    };
  }
  const problems = failure.problems.length > 0 ? failure.problems : [{ path: where, message: failure.message }];
  const message =
    failure.reason === 'variables_invalid' ? `the variables do not fit ${name}` : `${name} could not be rendered: ${failure.message}`;
  const answer = invalid(message, problems);
  return { ...answer, metadata: { ...answer.metadata, reason: failure.reason } };
};
