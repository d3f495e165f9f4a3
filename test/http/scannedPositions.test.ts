import { useApiSpecification } from '../support/apiSpecification';
import { KEYS } from '../support/service';
import { webhookHelpers } from '../support/webhooks';

/**
 * A subscriber's position is where it has read the log up to, not the last event it was handed:
 * a webhook of a quiet workspace moves past other workspaces' events too, so after a restart it
 * starts from there instead of reading them again.
 */
const svc = useApiSpecification({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });

it("an idle webhook's checkpoint moves past another workspace's events, kept across a restart", async () => {
  const { createHook, getHook, write } = webhookHelpers(() => svc);
  const hook = await createHook({ url: 'http://127.0.0.1:9/quiet' }, KEYS.otherWorkspace); // workspace B
  for (let i = 0; i < 3; i++) await write(`busy-${i}`); // workspace A
  const head = (await svc.eventStore.headPosition())!.toString();
  expect(BigInt(hook.checkpoint ?? '0') < BigInt(head)).toBe(true);
  // The loop sees A's events go by (its shared reader does), then the service stops and starts again.
  await new Promise((r) => setTimeout(r, 300));
  await svc.restart();
  expect((await getHook(hook.id, KEYS.otherWorkspace)).checkpoint).toBe(head);
  // Nothing was delivered: B had no events.
  const deliveries = await (await svc.request(`/api/v1/webhooks/${hook.id}/deliveries`, { key: KEYS.otherWorkspace })).json();
  expect(deliveries.data).toEqual([]);
});
