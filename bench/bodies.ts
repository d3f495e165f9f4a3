/**
 * Realistic chat-completions bodies (1–2 KiB): a system and a user message, three tools with
 * JSON-schema parameters, response_format, temperature, max_tokens and provider routing.
 * `variant` changes a few values so consecutive bodies are not byte-identical.
 */
const MODELS = ['openai/gpt-4o', 'anthropic/claude-sonnet-4', 'google/gemini-2.5-pro', 'meta-llama/llama-3.3-70b-instruct'];

export const chatBody = (variant: number): string =>
  JSON.stringify({
    model: MODELS[variant % MODELS.length],
    messages: [
      {
        role: 'system',
        content:
          `You are the support assistant of Acme Cloud (profile ${variant % 97}). Answer in the customer's language, ` +
          'cite the knowledge-base article you used, never promise refunds, and escalate to a human when the customer ' +
          'mentions a legal issue, a security incident or asks twice for a person.',
      },
      { role: 'user', content: 'My invoice for March shows two charges for the same workspace. Can you check?' },
    ],
    tools: [
      {
        type: 'function',
        function: {
          name: 'lookup_invoice',
          description: 'Fetch an invoice and its line items by month.',
          parameters: {
            type: 'object',
            properties: { workspace_id: { type: 'string' }, month: { type: 'string', pattern: '^\\d{4}-\\d{2}$' } },
            required: ['workspace_id', 'month'],
          },
        },
      },
      {
        type: 'function',
        function: {
          name: 'search_kb',
          description: 'Search the knowledge base.',
          parameters: {
            type: 'object',
            properties: { query: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 10 } },
            required: ['query'],
          },
        },
      },
      {
        type: 'function',
        function: {
          name: 'escalate',
          description: 'Hand the conversation to a human agent.',
          parameters: {
            type: 'object',
            properties: { reason: { type: 'string', enum: ['legal', 'security', 'requested', 'other'] }, note: { type: 'string' } },
            required: ['reason'],
          },
        },
      },
    ],
    tool_choice: 'auto',
    response_format: {
      type: 'json_schema',
      json_schema: {
        name: 'support_answer',
        strict: true,
        schema: {
          type: 'object',
          properties: { answer: { type: 'string' }, kb_article: { type: ['string', 'null'] } },
          required: ['answer', 'kb_article'],
          additionalProperties: false,
        },
      },
    },
    temperature: Math.round((0.2 + (variant % 7) * 0.1) * 10) / 10,
    max_tokens: 512 + (variant % 4) * 256,
    provider: { order: ['openai', 'azure'], allow_fallbacks: true, data_collection: 'deny', sort: 'throughput' },
  });

/** A handful of variants, built once: the load generator only picks one per request. */
export const BODIES: readonly string[] = Array.from({ length: 16 }, (_, i) => chatBody(i));
