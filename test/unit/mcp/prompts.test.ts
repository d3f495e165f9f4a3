import * as E from 'fp-ts/Either';
import { GetPromptResultSchema, PromptSchema } from '@modelcontextprotocol/sdk/types.js';
import type { PresetView, VersionView } from '#projections/readmodel/readModel';
import { resolveRequest } from '#src/resolve/resolve';
import { promptOf, promptResult } from '#src/mcp/prompts';

/**
 * A preset as an MCP prompt, and a resolution as `prompts/get` answers it: each checked against the
 * MCP SDK's own schemas of a prompt and a prompt result, and the messages against the resolution
 * the service's resolve makes of the same preset.
 */
const AT = '2026-01-01T00:00:00.000Z';
const version = (fields: Partial<VersionView> = {}): VersionView => ({
  id: '00000000-0000-4000-8000-000000000002',
  preset_id: '00000000-0000-4000-8000-000000000001',
  version: 1,
  config: { model: 'openai/gpt-4o' },
  system_prompt: 'You help {{who}}.',
  template_format: 'handlebars',
  variables: { type: 'object', properties: { who: { type: 'string', description: 'Whom' } }, required: ['who'] },
  messages: [
    { role: 'user', content: 'Hello from {{who}}' },
    { role: 'assistant', content: 'Hi' },
  ],
  note: null,
  source_format: 'chat_completions',
  creator_id: 'u',
  created_at: AT,
  updated_at: AT,
  ...fields,
});
const preset = (v: VersionView, fields: Partial<PresetView> = {}): PresetView => ({
  id: v.preset_id,
  name: 'Helper',
  slug: 'helper',
  description: 'Helps',
  status: 'active',
  status_updated_at: null,
  created_at: AT,
  updated_at: AT,
  creator_user_id: 'u',
  workspace_id: '00000000-0000-4000-8000-000000000009',
  labels: {},
  designated_version_id: v.id,
  designated_version: v,
  ...fields,
});
const resolved = async (p: PresetView, variables?: Record<string, unknown>) => {
  const source = { preset: async () => p, version: async () => null, latestVersion: async () => p.designated_version };
  const answer = await resolveRequest('chat_completions', { model: '@preset/helper', messages: [] }, source, { variables });
  if (E.isLeft(answer)) throw new Error(answer.left.message);
  return answer.right;
};

describe('promptOf', () => {
  it('is a prompt by MCP’s schema: named by the slug, titled by the name, its arguments the variables', () => {
    const prompt = promptOf(preset(version()));
    expect(PromptSchema.parse(prompt)).toEqual(prompt);
    expect(prompt).toEqual({
      name: 'helper',
      title: 'Helper',
      description: 'Helps',
      arguments: [{ name: 'who', description: 'Whom', required: true }],
    });
  });

  it('has no arguments for a version that is not a template, whatever its text says, and no description when the preset has none', () => {
    const prompt = promptOf(preset(version({ template_format: 'none', variables: null }), { description: null }));
    expect(prompt.arguments).toEqual([]);
    expect(prompt).not.toHaveProperty('description');
  });
});

describe('promptResult', () => {
  it('is a prompt result by MCP’s schema, its texts those of the resolved request, the system prompt first as a user message', async () => {
    const resolution = await resolved(preset(version()), { who: 'Ann' });
    const result = promptResult(resolution, 'Helps');
    expect(GetPromptResultSchema.parse(result)).toEqual(result);
    const chat = resolution.request.messages as Array<{ role: string; content: string }>;
    expect(result.messages.map((m) => m.content.text)).toEqual(chat.map((m) => m.content));
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'user', 'assistant']);
    expect(result.messages[0]!.content._meta).toEqual({ 'presets/role': 'system' });
    expect(result._meta['presets/system_prompt']).toBe('You help Ann.');
    expect(result._meta['presets/preset']).toEqual(resolution.preset);
  });

  it('has no system message when the version has no system prompt', async () => {
    const result = promptResult(
      await resolved(preset(version({ id: '00000000-0000-4000-8000-000000000003', system_prompt: '' })), { who: 'Bo' }),
      null,
    );
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(result._meta).not.toHaveProperty('presets/system_prompt');
    expect(result).not.toHaveProperty('description');
  });
});
