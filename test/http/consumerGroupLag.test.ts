import { randomUUID } from 'node:crypto';
import { LAG_CAP } from '#src/consumerGroups/codecs';
import { createPresetCommandHandler } from '#src/presets/handler';
import { useApiSpecification } from '../support/apiSpecification';
import { KEYS, WORKSPACE_A } from '../support/service';
import { scrape } from '../support/prometheus';

/**
 * A consumer group far behind: its lag is counted up to LAG_CAP events and says so
 * (`lag_capped`), in its view and in the /metrics gauges, and a filter counts only what the group
 * would be handed. A service of its own: the other consumer-group tests compare with the whole feed.
 */
jest.setTimeout(120_000);

const svc = useApiSpecification();

const put = (name: string, json: unknown = {}) => svc.request(`/api/v1/consumer-groups/${name}`, { method: 'PUT', json, key: KEYS.writer });
const group = async (name: string) =>
  (await (await svc.request(`/api/v1/consumer-groups/${name}`, { key: KEYS.writer })).json()).data as {
    lag: number;
    lag_capped: boolean;
  };

it('counts a lag up to the cap and says when it is capped; a filter counts what the group would be handed', async () => {
  const handle = createPresetCommandHandler({ eventStore: svc.eventStore });
  // LAG_CAP + 5 events of workspace A: 50 presets (50 PresetCreated), the rest versions of them.
  const presets = 50;
  const total = LAG_CAP + 5;
  const add = (i: number) =>
    handle({
      type: 'AddPresetVersion',
      data: {
        workspaceId: WORKSPACE_A,
        slug: `lag-${i % presets}`,
        config: { model: 'openai/gpt-4o', seed: i },
        systemPrompt: 'Be terse.',
      },
      metadata: { requestId: randomUUID(), actorUserId: 'user-1', sourceFormat: 'chat_completions' },
    });
  // Each preset's versions in order (one append per stream at a time), the presets side by side.
  await Promise.all(
    Array.from({ length: presets }, async (_, p) => {
      for (let i = p; i < total; i += presets) expect((await add(i)).events).toHaveLength(1);
    }),
  );

  expect((await put('far-behind', { start: 'beginning' })).status).toBe(201);
  expect(await group('far-behind')).toMatchObject({ lag: LAG_CAP, lag_capped: true });
  expect((await put('created-only', { start: 'beginning', filter: { types: ['PresetCreated'] } })).status).toBe(201);
  expect(await group('created-only')).toMatchObject({ lag: presets, lag_capped: false });

  const metrics = await scrape(`${svc.url}/metrics`, undefined, svc.fetch);
  expect(metrics.value('presets_consumer_group_max_lag_events')).toBe(LAG_CAP);
  expect(metrics.value('presets_consumer_group_lag_events')).toBe(LAG_CAP + presets);
});
