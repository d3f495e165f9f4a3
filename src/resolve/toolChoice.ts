import type { SourceFormat } from '../presets/events';

/**
 * `tool_choice` in the three formats:
 *  - chat_completions: "none" | "auto" | "required" | {"type":"function","function":{"name"}} | {"type":"<server tool>"}
 *  - messages: {"type":"none"} | {"type":"auto"} | {"type":"any"} | {"type":"tool","name"}, the last three with
 *    `disable_parallel_tool_use` (what the other two formats say with `parallel_tool_calls: false`)
 *  - responses: "none" | "auto" | "required" | {"type":"function","name"} | {"type":"allowed_tools"|"web_search_preview"|…}
 * The four common choices translate; any other is its format's own.
 */
type Json = Record<string, unknown>;
const isObject = (u: unknown): u is Json => typeof u === 'object' && u !== null && !Array.isArray(u);

export type Choice = { kind: 'none' | 'auto' | 'required' } | { kind: 'function'; name: string };

const MESSAGES_KINDS: Record<string, Choice['kind']> = { none: 'none', auto: 'auto', any: 'required' };

/** The choice a value of `format` makes, or undefined when it is one only that format has. */
export const readChoice = (format: SourceFormat, value: unknown): Choice | undefined => {
  if (format === 'messages') {
    if (!isObject(value)) return undefined;
    if (value.type === 'tool') return typeof value.name === 'string' ? { kind: 'function', name: value.name } : undefined;
    const kind = typeof value.type === 'string' && Object.hasOwn(MESSAGES_KINDS, value.type) ? MESSAGES_KINDS[value.type] : undefined;
    return kind ? ({ kind } as Choice) : undefined;
  }
  if (value === 'none' || value === 'auto' || value === 'required') return { kind: value };
  if (!isObject(value) || value.type !== 'function') return undefined;
  const name = format === 'chat_completions' ? (isObject(value.function) ? value.function.name : undefined) : value.name;
  return typeof name === 'string' ? { kind: 'function', name } : undefined;
};

/** Parts of a messages choice beside the choice itself (`disable_parallel_tool_use` is read apart). */
export const messagesChoiceExtras = (value: unknown): string[] =>
  isObject(value) ? Object.keys(value).filter((k) => k !== 'type' && k !== 'name' && k !== 'disable_parallel_tool_use') : [];

/** Parts of a chat_completions or responses named-function choice beside its name. */
export const functionChoiceExtras = (format: SourceFormat, value: unknown): string[] => {
  if (!isObject(value) || value.type !== 'function') return [];
  if (format === 'chat_completions') {
    const fn = isObject(value.function)
      ? Object.keys(value.function)
          .filter((k) => k !== 'name')
          .map((k) => `function.${k}`)
      : [];
    return [...Object.keys(value).filter((k) => k !== 'type' && k !== 'function'), ...fn];
  }
  return Object.keys(value).filter((k) => k !== 'type' && k !== 'name');
};

/** The choice as `format` says it. */
export const writeChoice = (format: SourceFormat, choice: Choice): unknown => {
  if (format === 'messages') {
    if (choice.kind === 'function') return { type: 'tool', name: choice.name };
    return { type: choice.kind === 'required' ? 'any' : choice.kind };
  }
  if (choice.kind !== 'function') return choice.kind;
  return format === 'chat_completions' ? { type: 'function', function: { name: choice.name } } : { type: 'function', name: choice.name };
};
