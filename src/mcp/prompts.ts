import type { PresetView } from '../../projections/readmodel/readModel';
import type { Resolution } from '../resolve/codecs';
import { promptArguments, type PromptArgument } from './arguments';

/**
 * Presets as MCP prompts, pure: a preset as `prompts/list` lists it, and a resolution (a
 * chat-completions request the service resolved from the preset) as `prompts/get` answers it.
 *
 * MCP prompt messages have two roles, `user` and `assistant`. The version's system prompt (rendered)
 * is the first message, as a `user` message whose content's `_meta` says `"presets/role": "system"`;
 * it is also the result's `_meta["presets/system_prompt"]`, for a client that sets a system prompt
 * of its own (it then leaves out the first message). The version's messages follow as they are.
 */
export const SYSTEM_ROLE_META = 'presets/role';
export const SYSTEM_PROMPT_META = 'presets/system_prompt';
export const PRESET_META = 'presets/preset';

export interface McpPrompt {
  name: string;
  title: string;
  description?: string;
  arguments: PromptArgument[];
}

export interface McpPromptMessage {
  role: 'user' | 'assistant';
  content: { type: 'text'; text: string; _meta?: Record<string, unknown> };
}

export interface McpPromptResult {
  description?: string;
  messages: McpPromptMessage[];
  _meta: Record<string, unknown>;
}

/** A preset as a prompt: named by its slug, titled by its name, its arguments those of its designated version. */
export const promptOf = (preset: PresetView): McpPrompt => {
  const version = preset.designated_version;
  const templated = (version.template_format ?? 'none') === 'handlebars';
  return {
    name: preset.slug,
    title: preset.name,
    ...(preset.description ? { description: preset.description } : {}),
    arguments: templated ? promptArguments(version.variables) : [],
  };
};

/** The text of a chat message's content: a string, or its text parts joined. */
const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((part) =>
        typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string'
          ? (part as { text: string }).text
          : '',
      )
      .join('');
  return '';
};

/** What `prompts/get` answers for a chat-completions resolution of the preset with no conversation of its own. */
export const promptResult = (resolution: Resolution, description: string | null): McpPromptResult => {
  const chat = Array.isArray(resolution.request.messages)
    ? (resolution.request.messages as Array<{ role?: unknown; content?: unknown }>)
    : [];
  const system: string[] = [];
  const messages: McpPromptMessage[] = [];
  for (const message of chat) {
    const text = textOf(message.content);
    if (message.role === 'system' || message.role === 'developer') {
      system.push(text);
      messages.push({ role: 'user', content: { type: 'text', text, _meta: { [SYSTEM_ROLE_META]: 'system' } } });
    } else {
      messages.push({ role: message.role === 'assistant' ? 'assistant' : 'user', content: { type: 'text', text } });
    }
  }
  return {
    ...(description ? { description } : {}),
    messages,
    _meta: {
      ...(system.length > 0 ? { [SYSTEM_PROMPT_META]: system.join('\n\n') } : {}),
      [PRESET_META]: resolution.preset,
    },
  };
};
