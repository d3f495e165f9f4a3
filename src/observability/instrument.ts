import { ConcurrencyConflict, type EventStoreAdapter } from '../eventstore/eventStore';
import { PreconditionFailed } from '../eventstore/commandHandler';
import type { NewDeliveryAttempt } from '../webhooks/webhookStore';
import type { Metrics } from './metrics';

/**
 * Decorators that count what passes through a port, applied at the composition root
 * (src/composition.ts): the ports and their adapters know nothing of metrics.
 */

/** Appends counted and timed by event type. Reads pass through. */
export const instrumentEventStore = (store: EventStoreAdapter, metrics: Metrics): EventStoreAdapter => ({
  ...store,
  async append(stream, events, expected) {
    const type = events[0]?.type ?? '(none)';
    const started = process.hrtime.bigint();
    const result = await store.append(stream, events, expected);
    metrics.appendDuration.observe({ type }, Number(process.hrtime.bigint() - started) / 1e9);
    for (const event of events) metrics.eventsAppended.inc({ type: event.type });
    return result;
  },
});

/** Read-your-writes waits counted, and those that ran out of time (answered 202: null). */
export const instrumentWaiter =
  <Args extends unknown[], Found>(wait: (...args: Args) => Promise<Found | null>, metrics: Metrics) =>
  async (...args: Args): Promise<Found | null> => {
    metrics.readYourWritesWaits.inc();
    const record = await wait(...args);
    if (record === null) metrics.readYourWritesTimeouts.inc();
    return record;
  };

/** A command handler whose refusals by optimistic concurrency are counted: a stale If-Match, or a race lost at the append. */
export const instrumentCommands =
  <Args extends unknown[], Result>(handle: (...args: Args) => Promise<Result>, metrics: Metrics) =>
  async (...args: Args): Promise<Result> => {
    try {
      return await handle(...args);
    } catch (error) {
      // PreconditionFailed first: it is a ConcurrencyConflict too.
      if (error instanceof PreconditionFailed) metrics.concurrencyConflicts.inc({ kind: 'if_match' });
      else if (error instanceof ConcurrencyConflict) metrics.concurrencyConflicts.inc({ kind: 'lost_race' });
      throw error;
    }
  };

/**
 * Webhook attempts by outcome (delivered: a 2xx; failed: another status; error: no answer), and
 * for each delivery the time from its event being stored to the receiver's answer.
 */
export const countDeliveryAttempts =
  (metrics: Metrics) =>
  (attempt: NewDeliveryAttempt, recordedAt: Date): void => {
    const outcome = attempt.outcome === 'succeeded' ? 'delivered' : attempt.httpStatus === null ? 'error' : 'failed';
    metrics.webhookAttempts.inc({ outcome });
    if (outcome === 'delivered') {
      const answeredAt = Date.parse(attempt.attemptedAt) + attempt.latencyMs;
      metrics.webhookDeliveryLag.observe(Math.max(0, answeredAt - recordedAt.getTime()) / 1000);
    }
  };
