/**
 * The support bot of docs/templates.md as `POST /api/v1/presets/{slug}/versions` takes it: a system
 * prompt with three variables of three types and one #if, and a few-shot pair. The suites that
 * need a templated preset start from it and say what they change.
 */
export const supportBot = () => ({
  format: 'chat_completions',
  config: { model: 'openai/gpt-4o', temperature: 0.3 } as Record<string, unknown>,
  system_prompt: 'You support customers of {{company}}. Answer in {{language}}.{{#if premium}} Escalate at once.{{/if}}',
  messages: [
    { role: 'user', content: 'Example question about {{company}}' },
    { role: 'assistant', content: 'Example answer' },
  ],
  template_format: 'handlebars',
  variables: {
    type: 'object',
    properties: {
      company: { type: 'string', description: 'Whose customers' },
      language: { type: 'string', enum: ['English', 'French'], default: 'English' },
      premium: { type: 'boolean' },
    } as Record<string, unknown>,
    required: ['company'],
  },
});
