import { useApiSpecification } from '../support/apiSpecification';
import { validRequest } from '../support/reference';

/**
 * Issue 13, as a new user tried it: bodies OpenRouter's reference accepts were refused or lost
 * fields. Each is checked against the reference too, so these are the reference's bodies.
 */
const svc = useApiSpecification();

const post = (path: string, json: Record<string, unknown>) => svc.request(`/api/v1/presets/${path}`, { method: 'POST', json });
const configOf = async (res: Response) => {
  const body = await res.json();
  expect({ status: res.status, error: body.error }).toEqual({ status: 200, error: undefined });
  return body.data.designated_version.config as Record<string, unknown>;
};

describe('what OpenRouter clients send today', () => {
  it('image_config is an object whose values are strings, numbers or lists', async () => {
    const body = {
      model: 'google/gemini-2.5-flash-image',
      modalities: ['image', 'text'],
      image_config: { aspect_ratio: '16:9' },
      messages: [],
    };
    expect(validRequest('chat_completions', { ...body, messages: [{ role: 'user', content: 'x' }] })).toBe(true);
    expect(await configOf(await post('img/chat/completions', body))).toEqual({
      model: 'google/gemini-2.5-flash-image',
      modalities: ['image', 'text'],
      image_config: { aspect_ratio: '16:9' },
    });
    expect((await post('img/responses', { model: 'm', image_config: { aspect_ratio: '1:1', n: 2, sizes: [1, 2] } })).status).toBe(200);
    const bad = await post('img/chat/completions', { messages: [], image_config: { aspect_ratio: { w: 16 } } });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.metadata.errors.map((e: { path: string }) => e.path)).toEqual(['$.image_config.aspect_ratio']);
  });

  it('null where the reference allows it means "not set"', async () => {
    expect(
      await configOf(await post('nulls/chat/completions', { model: 'openai/gpt-4o', provider: null, stream_options: null, messages: [] })),
    ).toEqual({ model: 'openai/gpt-4o' });
    const responses = {
      model: 'openai/o4-mini',
      prompt: null,
      metadata: null,
      reasoning: null,
      truncation: null,
      prompt_cache_options: null,
      provider: null,
    };
    expect(validRequest('responses', responses)).toBe(true);
    expect(await configOf(await post('nulls/responses', responses))).toEqual({ model: 'openai/o4-mini' });
    const chat = { model: 'm', prediction: null, prompt_cache_options: null, reasoning_effort: null, top_k: null, messages: [] };
    expect(await configOf(await post('nulls/chat/completions', chat))).toEqual({ model: 'm' });
  });

  it('null where the reference does not allow it is a 400, at each such field', async () => {
    const res = await post('nulls/chat/completions', { model: null, reasoning: null, tools: null, messages: [] });
    expect(res.status).toBe(400);
    expect((await res.json()).error.metadata.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      '$.model',
      '$.reasoning',
      '$.tools',
    ]);
  });

  it('sampling and reasoning fields of chat-completions configure the model, so they are kept', async () => {
    const body = { model: 'm', top_k: 40, min_p: 0.05, top_a: 0.1, repetition_penalty: 1.1, reasoning_effort: 'high', messages: [] };
    expect(await configOf(await post('sampling/chat/completions', body))).toEqual({
      model: 'm',
      top_k: 40,
      min_p: 0.05,
      top_a: 0.1,
      repetition_penalty: 1.1,
      reasoning_effort: 'high',
    });
  });

  it('fields the spec does not list: fallbacks and prompt_cache_options kept, prediction and prompt_cache_key not', async () => {
    const messages = { model: 'anthropic/claude-opus-4', messages: [], fallbacks: [{ model: 'anthropic/claude-sonnet-4' }] };
    expect(await configOf(await post('extra/messages', messages))).toEqual({
      model: 'anthropic/claude-opus-4',
      fallbacks: [{ model: 'anthropic/claude-sonnet-4' }],
    });
    const chat = {
      model: 'm',
      messages: [],
      prompt_cache_options: { mode: 'explicit' },
      prediction: { type: 'content', content: 'draft' },
      prompt_cache_key: 'k',
    };
    expect(await configOf(await post('extra/chat/completions', chat))).toEqual({ model: 'm', prompt_cache_options: { mode: 'explicit' } });
    expect(await configOf(await post('extra/responses', { model: 'm', debug: { echo_upstream_body: true } }))).toEqual({ model: 'm' });
  });

  it('enums follow the reference: service_tier, reasoning_effort, truncation, speed, route, include', async () => {
    const res = await post('enums/responses', {
      service_tier: 'turbo',
      truncation: 'sometimes',
      include: ['reasoning.encrypted_content', 'everything'],
      route: 'random',
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.metadata.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      '$.include[1]',
      '$.route',
      '$.service_tier',
      '$.truncation',
    ]);
    expect((await post('enums/messages', { model: 'm', messages: null, speed: 'ludicrous' })).status).toBe(400);
    expect((await post('enums/messages', { model: 'm', messages: null, speed: 'fast' })).status).toBe(200);
  });

  it('keeps the one leniency: an empty chat-completions conversation', async () => {
    expect(validRequest('chat_completions', { messages: [] })).toBe(false);
    expect((await post('lenient/chat/completions', { model: 'm', messages: [] })).status).toBe(200);
  });
});
