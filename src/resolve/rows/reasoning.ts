import type { SourceFormat } from '../../presets/events';
import { isObject, present, type Row } from './row';

/** The reasoning rows: effort, on or off with its budget (messages' thinking), and the other reasoning settings. */

const MESSAGES_EFFORTS = ['low', 'medium', 'high', 'xhigh', 'max'];
const REASONING_AT: Record<SourceFormat, [string, string]> = {
  chat_completions: ['reasoning', 'effort'],
  messages: ['output_config', 'effort'],
  responses: ['reasoning', 'effort'],
};

export const effort: Row = {
  setting: 'reasoning effort',
  at: {
    chat_completions: '`reasoning.effort` (or `reasoning_effort`)',
    messages: '`output_config.effort`',
    responses: '`reasoning.effort`',
  },
  how: 'as is; messages takes `low`, `medium`, `high`, `xhigh`, `max`; from chat_completions, `reasoning.effort` when both are set',
  reads: { chat_completions: ['reasoning', 'reasoning_effort'], messages: ['output_config'], responses: ['reasoning'] },
  translate({ from, to, src, put, drop }) {
    const [field, key] = REASONING_AT[from];
    let origin = `${field}.${key}`;
    let value = src.take(field, key);
    if (from === 'chat_completions') {
      const alias = src.take('reasoning_effort');
      if (!present(value)) [value, origin] = [alias, 'reasoning_effort'];
      else if (present(alias)) drop('reasoning_effort', 'reasoning.effort is used: both are the reasoning effort');
    }
    if (!present(value)) return;
    if (to === 'messages' && !MESSAGES_EFFORTS.includes(value as string)) {
      return drop(origin, `messages' efforts are ${MESSAGES_EFFORTS.join(', ')}`);
    }
    const [toField, toKey] = REASONING_AT[to];
    put(`${toField}.${toKey}`, value, origin);
  },
};

/** Responses' reasoning keys with a fixed set of values (chat_completions' reasoning takes any value for them). */
const RESPONSES_REASONING_VALUES: Record<string, readonly unknown[]> = {
  summary: ['auto', 'concise', 'detailed', null],
  mode: ['standard', 'pro', null],
  context: ['auto', 'all_turns', 'current_turn', null],
};
const fitsResponsesReasoning = (key: string, value: unknown): boolean =>
  key === 'enabled'
    ? typeof value === 'boolean' || value === null
    : key === 'max_tokens'
      ? Number.isInteger(value) || value === null
      : !Object.hasOwn(RESPONSES_REASONING_VALUES, key) || RESPONSES_REASONING_VALUES[key]!.includes(value);

export const thinking: Row = {
  setting: 'reasoning on or off, and its budget',
  at: {
    chat_completions: '`reasoning.enabled`, `reasoning.max_tokens`',
    messages: '`thinking`',
    responses: '`reasoning.enabled`, `reasoning.max_tokens`',
  },
  how:
    '`{"type":"enabled","budget_tokens":n}` ↔ `max_tokens: n`; `{"type":"adaptive"}` ↔ `enabled: true`; `{"type":"disabled"}` ↔ `enabled: false` ' +
    "(which wins over a budget); messages' `thinking.display` has no counterpart",
  reads: { chat_completions: ['reasoning'], messages: ['thinking'], responses: ['reasoning'] },
  translate({ from, to, src, put, drop }) {
    if (from === 'messages') {
      const value = src.take('thinking');
      if (value === undefined) return;
      if (!isObject(value)) return drop('thinking', 'not a thinking setting (an object)');
      for (const key of Object.keys(value)) {
        if (key === 'display') drop('thinking.display', `${to} has no thinking display`);
        else if (key !== 'type' && !(key === 'budget_tokens' && value.type === 'enabled'))
          drop(`thinking.${key}`, `${to} has no counterpart of it`);
      }
      if (value.type === 'enabled' && Number.isInteger(value.budget_tokens))
        put('reasoning.max_tokens', value.budget_tokens, 'thinking.budget_tokens');
      else if (value.type === 'adaptive') put('reasoning.enabled', true, 'thinking.type');
      else if (value.type === 'disabled') put('reasoning.enabled', false, 'thinking.type');
      else drop('thinking.type', `${to} has no counterpart of this thinking setting`);
      return;
    }
    const enabled = src.take('reasoning', 'enabled');
    const budget = src.take('reasoning', 'max_tokens');
    if (to !== 'messages') {
      for (const [key, value] of [
        ['enabled', enabled],
        ['max_tokens', budget],
      ] as const) {
        if (value === undefined) continue;
        if (to === 'responses' && !fitsResponsesReasoning(key, value))
          drop(`reasoning.${key}`, `responses takes ${key === 'enabled' ? 'true or false' : 'a whole number'} here`);
        else put(`reasoning.${key}`, value, `reasoning.${key}`);
      }
      return;
    }
    if (enabled === false) {
      put('thinking', { type: 'disabled' }, 'reasoning.enabled');
      if (present(budget)) drop('reasoning.max_tokens', 'reasoning is off (enabled: false)');
    } else if (Number.isInteger(budget)) {
      // enabled: true (if set) is said by the type: thinking with a budget is on.
      put('thinking', { type: 'enabled', budget_tokens: budget }, 'reasoning.max_tokens');
      if (present(enabled) && enabled !== true) drop('reasoning.enabled', 'not true or false');
    } else {
      if (present(budget)) drop('reasoning.max_tokens', 'not a whole number of tokens');
      if (enabled === true) put('thinking', { type: 'adaptive' }, 'reasoning.enabled');
      else if (present(enabled)) drop('reasoning.enabled', 'not true or false');
    }
  },
};

export const otherReasoning: Row = {
  setting: 'other reasoning settings (`summary`, `mode`, `context`, `exclude`, …)',
  at: { chat_completions: '`reasoning.*`', responses: '`reasoning.*`' },
  how: 'as is; responses takes `summary` auto/concise/detailed, `mode` standard/pro, `context` auto/all_turns/current_turn',
  reads: { chat_completions: ['reasoning'], responses: ['reasoning'] },
  translate({ from, to, src, put, placed, drop }) {
    if (from === 'messages') return;
    const whole = src.config.reasoning;
    // An empty reasoning object says nothing, but between the two formats that have one it stays.
    if (isObject(whole) && Object.keys(whole).length === 0 && to !== 'messages' && placed('reasoning') === undefined)
      put('reasoning', {}, 'reasoning');
    for (const [key, value] of src.rest('reasoning')) {
      if (to === 'messages') drop(`reasoning.${key}`, `messages has no reasoning ${key}`);
      else if (to === 'responses' && !fitsResponsesReasoning(key, value))
        drop(`reasoning.${key}`, `responses does not take this reasoning ${key}`);
      else put(`reasoning.${key}`, value, `reasoning.${key}`);
    }
  },
};
