import { readChoice, writeChoice, functionChoiceExtras, messagesChoiceExtras } from '../toolChoice';
import { translateTool } from '../tools';
import { isObject, type Row } from './row';

/** The tool rows: the tools (each translated by ../tools.ts), the tool choice (../toolChoice.ts) and parallel tool calls. */

export const tools: Row = {
  setting: 'tools',
  at: { chat_completions: '`tools`', messages: '`tools`', responses: '`tools`' },
  how:
    'function tools: `{"type":"function","function":{name, description, parameters, strict}}` ↔ `{name, description, input_schema}` ↔ ' +
    '`{"type":"function", name, description, parameters, strict}` (parts a shape lacks are dropped); OpenRouter\'s `openrouter:*` server tools as they are, ' +
    'where the target lists them; any other tool only in its own format',
  reads: { chat_completions: ['tools'], messages: ['tools'], responses: ['tools'] },
  translate({ from, to, src, put, drop }) {
    const value = src.take('tools');
    if (value === undefined) return;
    if (!Array.isArray(value)) return drop('tools', 'not a list of tools');
    const kept: unknown[] = [];
    value.forEach((tool, i) => {
      const { tool: translated, problems } = translateTool(from, to, tool, `tools[${i}]`);
      for (const p of problems) drop(p.field, p.reason);
      if (translated) kept.push(translated);
    });
    // A list every tool of which was dropped (each listed) is left out: providers refuse an empty one.
    if (kept.length > 0 || value.length === 0) put('tools', kept, 'tools');
  },
};

export const toolChoice: Row = {
  setting: 'tool choice',
  at: { chat_completions: '`tool_choice`', messages: '`tool_choice`', responses: '`tool_choice`' },
  how:
    '`"none"` ↔ `{"type":"none"}`, `"auto"` ↔ `{"type":"auto"}`, `"required"` ↔ `{"type":"any"}`, one function: ' +
    '`{"type":"function","function":{"name"}}` ↔ `{"type":"tool","name"}` ↔ `{"type":"function","name"}`; any other choice only in its own format',
  reads: { chat_completions: ['tool_choice'], messages: ['tool_choice'], responses: ['tool_choice'] },
  translate({ from, to, src, put, drop }) {
    const value = src.take('tool_choice');
    if (value === undefined) return;
    const choice = readChoice(from, value);
    if (!choice) return drop('tool_choice', `this tool choice is ${from}'s own; ${to} has no such choice`);
    const extras = from === 'messages' ? messagesChoiceExtras(value) : functionChoiceExtras(from, value);
    for (const key of extras) drop(`tool_choice.${key}`, `${to}'s tool choice has no such field`);
    put('tool_choice', writeChoice(to, choice), 'tool_choice');
  },
};

export const parallelToolCalls: Row = {
  setting: 'parallel tool calls',
  at: {
    chat_completions: '`parallel_tool_calls`',
    messages: '`tool_choice.disable_parallel_tool_use`',
    responses: '`parallel_tool_calls`',
  },
  how: 'inverted between messages and the others; messages says it only inside a tool choice other than none',
  reads: { chat_completions: ['parallel_tool_calls'], messages: ['tool_choice'], responses: ['parallel_tool_calls'] },
  translate({ from, to, src, put, placed, drop }) {
    if (from === 'messages') {
      const disable = src.take('tool_choice', 'disable_parallel_tool_use');
      if (disable === undefined) return;
      if (typeof disable !== 'boolean') return drop('tool_choice.disable_parallel_tool_use', 'not true or false');
      return put('parallel_tool_calls', !disable, 'tool_choice.disable_parallel_tool_use');
    }
    const value = src.take('parallel_tool_calls');
    if (value === undefined) return;
    if (to !== 'messages') return put('parallel_tool_calls', value, 'parallel_tool_calls');
    if (typeof value !== 'boolean') return drop('parallel_tool_calls', 'not true or false');
    // The choice this translation made (the tool choice row runs first); "none" cannot carry it.
    const choice = placed('tool_choice');
    if (!isObject(choice) || choice.type === 'none') {
      return drop(
        'parallel_tool_calls',
        'messages says it in tool_choice.disable_parallel_tool_use, and there is no tool choice (other than none) to carry it',
      );
    }
    put('tool_choice.disable_parallel_tool_use', !value, 'parallel_tool_calls');
  },
};
