import type { SourceFormat } from '../presets/events';
import { toolIdentity } from './tools';
import type { Dropped, Translation } from './translation';

/**
 * OpenRouter's merge of a preset into a request, made exact:
 *  - shallow: a top-level field present (and not null) in the request wins; the preset's other
 *    fields are kept;
 *  - `tools`: a union by identity (tools.ts): the preset's tools first, in their order; a request
 *    tool of the same identity takes that place; the request's other tools follow, in theirs;
 *  - the system prompt: when the version has one and the request has no system instruction of its
 *    own, where the format expects it (a leading system message, `system`, `instructions`);
 *  - `messages` and `input` are kept as sent.
 * Two names of one setting in one format (chat_completions' `max_tokens` and
 * `max_completion_tokens`) are one field here: the request's wins over the preset's other name.
 */
type Json = Record<string, unknown>;
const isObject = (u: unknown): u is Json => typeof u === 'object' && u !== null && !Array.isArray(u);
const isSet = (v: unknown) => v !== undefined && v !== null;

/** Pairs of paths that name one setting in a format. */
export const SYNONYMS: Readonly<Record<SourceFormat, ReadonlyArray<readonly [string, string]>>> = {
  chat_completions: [
    ['max_tokens', 'max_completion_tokens'],
    ['reasoning_effort', 'reasoning.effort'],
  ],
  messages: [],
  responses: [],
};
// Each pair both ways round: (the request's name, the preset's), made once.
const SYNONYM_CHECKS = Object.fromEntries(
  Object.entries(SYNONYMS).map(([format, pairs]) => [
    format,
    pairs.flatMap(
      ([a, b]) =>
        [
          [a, b],
          [b, a],
        ] as const,
    ),
  ]),
) as unknown as Record<SourceFormat, ReadonlyArray<readonly [string, string]>>;

const at = (object: Json, path: string): unknown => {
  const dot = path.indexOf('.');
  if (dot < 0) return object[path];
  const parent = object[path.slice(0, dot)];
  return isObject(parent) ? parent[path.slice(dot + 1)] : undefined;
};

/** `object` without `path` (a copy; the object is not changed). */
const without = (object: Json, path: string): Json => {
  const dot = path.indexOf('.');
  if (dot < 0) {
    const { [path]: _gone, ...rest } = object;
    return rest;
  }
  const [field, key] = [path.slice(0, dot), path.slice(dot + 1)];
  const { [key]: _gone, ...parent } = object[field] as Json;
  return { ...object, [field]: parent };
};

/** The preset's tools, each replaced in place by the request's of the same identity, then the request's others. */
export const mergeTools = (format: SourceFormat, preset: readonly unknown[], request: readonly unknown[]): unknown[] => {
  const byIdentity = new Map<string, unknown[]>();
  for (const tool of request) {
    const id = toolIdentity(format, tool);
    if (id === undefined) continue;
    const same = byIdentity.get(id);
    if (same) same.push(tool);
    else byIdentity.set(id, [tool]);
  }
  const placed = new Set<string>();
  const merged: unknown[] = [];
  for (const tool of preset) {
    const id = toolIdentity(format, tool);
    const replacement = id === undefined ? undefined : byIdentity.get(id);
    if (!replacement) merged.push(tool);
    else if (!placed.has(id!)) {
      merged.push(...replacement);
      placed.add(id!);
    }
  }
  for (const tool of request) {
    const id = toolIdentity(format, tool);
    if (id === undefined || !placed.has(id)) merged.push(tool);
  }
  return merged;
};

/** Does the request carry a system instruction of its own? */
const hasOwnSystem = (format: SourceFormat, request: Json): boolean => {
  if (format === 'chat_completions') {
    return Array.isArray(request.messages) && request.messages.some((m) => isObject(m) && m.role === 'system');
  }
  return isSet(format === 'messages' ? request.system : request.instructions);
};

export interface Merged {
  request: Json;
  dropped: Dropped[];
  /**
   * The preset's fields the request set itself (named as in the target format), and
   * `system_prompt` when the request brought its own system instruction: what a gateway checks
   * to see whether a caller replaced a preset's safety prompt or provider policy.
   */
  overridden: string[];
}

/**
 * The request to send: `request` (a valid body of `format`, its model already settled and its
 * preset reference gone) with the version's config (translated to `format`) and system prompt.
 */
export const mergeRequest = (format: SourceFormat, request: Json, preset: Translation, systemPrompt: string): Merged => {
  const dropped: Dropped[] = [];
  const overridden: string[] = [];
  let config = preset.config as Json;
  for (const [mine, theirs] of SYNONYM_CHECKS[format]) {
    if (isSet(at(request, mine)) && at(config, theirs) !== undefined) {
      config = without(config, theirs);
      dropped.push({ field: preset.origins.get(theirs) ?? theirs, reason: `the request sets ${mine}` });
      overridden.push(theirs);
    }
  }

  // Plain loops: object spread and Object.entries cost several times more on this path, run per request.
  const merged: Json = {};
  for (const field in request) merged[field] = request[field];
  for (const field in config) {
    const mine = request[field];
    const value = config[field];
    if (!isSet(mine)) merged[field] = value;
    else {
      overridden.push(field);
      if (field === 'tools' && Array.isArray(mine) && Array.isArray(value)) merged.tools = mergeTools(format, value, mine);
    }
  }

  if (systemPrompt !== '') {
    if (hasOwnSystem(format, request)) overridden.push('system_prompt');
    else if (format === 'chat_completions')
      merged.messages = [{ role: 'system', content: systemPrompt }, ...(request.messages as unknown[])];
    else merged[format === 'messages' ? 'system' : 'instructions'] = systemPrompt;
  }
  return { request: merged, dropped, overridden };
};
