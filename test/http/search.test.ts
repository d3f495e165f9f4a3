import { useApiSpecification } from '../support/apiSpecification';
import { chatBody, KEYS } from '../support/service';

/** GET /api/v1/presets?q=: the presets whose slug or name contains the search, ignoring case. */
const svc = useApiSpecification();
beforeAll(async () => {
  const named = {
    'support-bot': 'Support bot',
    billing: 'Billing support',
    'sum-up': 'Résumé',
    'other-one': 'Other',
    archived: 'Old support',
  };
  for (const [slug, name] of Object.entries(named)) {
    expect((await svc.request(`/api/v1/presets/${slug}/chat/completions`, { method: 'POST', json: chatBody() })).status).toBe(200);
    expect((await svc.request(`/api/v1/presets/${slug}`, { method: 'PATCH', json: { name } })).status).toBe(200);
  }
  expect((await svc.request('/api/v1/presets/archived', { method: 'DELETE' })).status).toBe(200);
  expect(
    (await svc.request('/api/v1/presets/support-bot/chat/completions', { method: 'POST', json: chatBody(), key: KEYS.otherWorkspace }))
      .status,
  ).toBe(200);
});

const listed = async (query: string) => {
  const res = await svc.request(`/api/v1/presets?${query}`);
  expect(res.status).toBe(200);
  const body = await res.json();
  return { slugs: body.data.map((p: { slug: string }) => p.slug), total: body.total_count };
};

describe('GET /api/v1/presets?q=', () => {
  it('finds by a part of the slug or of the name, ignoring case, most recently updated first', async () => {
    expect(await listed('q=SUPPORT')).toEqual({ slugs: ['billing', 'support-bot'], total: 2 });
    expect(await listed('q=bot')).toEqual({ slugs: ['support-bot'], total: 1 });
    expect(await listed(`q=${encodeURIComponent('résumé')}`)).toEqual({ slugs: ['sum-up'], total: 1 });
    expect(await listed('q=-one')).toEqual({ slugs: ['other-one'], total: 1 });
    expect(await listed('q=nowhere')).toEqual({ slugs: [], total: 0 });
  });

  it('combines with the status filter (archived hidden by default) and with paging', async () => {
    expect(await listed('q=support&status=all')).toEqual({ slugs: ['archived', 'billing', 'support-bot'], total: 3 });
    expect(await listed('q=support&status=archived')).toEqual({ slugs: ['archived'], total: 1 });
    expect(await listed('q=support&limit=1&offset=1')).toEqual({ slugs: ['support-bot'], total: 2 });
  });

  it('takes the search literally (no wildcards) and an empty search as none', async () => {
    expect(await listed('q=%25')).toEqual({ slugs: [], total: 0 });
    expect(await listed('q=_')).toEqual({ slugs: [], total: 0 });
    expect((await listed('q=')).total).toBe(4);
  });

  it('400 for a search over 200 characters or given twice', async () => {
    for (const query of [`q=${'a'.repeat(201)}`, 'q=a&q=b']) {
      const res = await svc.request(`/api/v1/presets?${query}`);
      expect(res.status).toBe(400);
      expect((await res.json()).error.metadata.errors[0].path).toBe('q');
    }
  });
});
