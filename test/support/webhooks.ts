import { Webhook } from 'standardwebhooks';
import { chatBody, KEYS, type TestService } from './service';
import type { Received } from './receiver';

/** What the webhook suites share: registering, writing events, reading the feed and the deliveries, verifying. */
export interface HookData {
  id: string;
  url: string;
  events: string[] | null;
  status: string;
  status_reason: string | null;
  checkpoint: string | null;
  secret: string;
}

export const webhookHelpers = (svc: () => Pick<TestService, 'request'>) => {
  const createHook = async (json: Record<string, unknown>, key = KEYS.writer): Promise<HookData> => {
    const res = await svc().request('/api/v1/webhooks', { method: 'POST', json, key });
    const body = await res.json();
    if (res.status !== 201) throw new Error(`POST /api/v1/webhooks answered ${res.status}: ${JSON.stringify(body)}`);
    return body.data;
  };
  const getHook = async (id: string, key = KEYS.writer) => (await (await svc().request(`/api/v1/webhooks/${id}`, { key })).json()).data;
  const patchHook = async (id: string, json: unknown, key = KEYS.writer) =>
    svc().request(`/api/v1/webhooks/${id}`, { method: 'PATCH', json, key });
  const deliveries = async (id: string, query = '', key = KEYS.writer) =>
    (await (await svc().request(`/api/v1/webhooks/${id}/deliveries${query}`, { key })).json()).data as Array<Record<string, unknown>>;
  /** One event: a preset created or versioned. */
  const write = async (slug: string, prompt = `prompt ${Math.random()}`, key = KEYS.writer) => {
    const res = await svc().request(`/api/v1/presets/${slug}/chat/completions`, {
      method: 'POST',
      key,
      json: chatBody({ messages: [{ role: 'system', content: prompt }] }),
    });
    if (res.status !== 200) throw new Error(`write answered ${res.status}`);
  };
  /** The workspace's events after a position, as the feed shows them. */
  const feed = async (
    after: string | null,
    key = KEYS.writer,
  ): Promise<Array<Record<string, unknown> & { id: string; type: string; position: string }>> => {
    const out = [];
    let cursor = after;
    for (;;) {
      const page = await (await svc().request(`/api/v1/events?limit=1000${cursor === null ? '' : `&after=${cursor}`}`, { key })).json();
      out.push(...page.data);
      if (page.data.length < 1000) return out;
      cursor = page.next_after;
    }
  };
  const verify = (secret: string, r: Received) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
  const deleteAll = async (key = KEYS.writer) => {
    const list = (await (await svc().request('/api/v1/webhooks', { key })).json()).data as Array<{ id: string }>;
    for (const h of list) await svc().request(`/api/v1/webhooks/${h.id}`, { method: 'DELETE', key });
  };
  return { createHook, getHook, patchHook, deliveries, write, feed, verify, deleteAll };
};

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `check` returns a value other than undefined; throws after `timeoutMs`. */
export const eventually = async <T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
};
