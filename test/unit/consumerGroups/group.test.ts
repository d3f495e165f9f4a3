import * as E from 'fp-ts/Either';
import { acknowledged, leased, openLease, retryAfterSeconds, type ConsumerGroup } from '#src/consumerGroups/group';

const T0 = new Date('2026-11-24T12:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);
const base: ConsumerGroup = {
  workspaceId: 'w',
  name: 'g',
  filter: { types: null, slugPrefix: null },
  leaseMs: 30_000,
  checkpoint: 10n,
  lease: null,
  revision: 4,
  createdAt: T0.toISOString(),
  updatedAt: T0.toISOString(),
};
const withLease = leased(base, { id: 'L1', first: 11n, last: 20n, count: 5 }, T0);

describe('a consumer group lease', () => {
  it('is held for lease_ms from the fetch, then no more', () => {
    expect(withLease.revision).toBe(5);
    expect(openLease(withLease, at(29_999))?.id).toBe('L1');
    expect(openLease(withLease, at(30_000))).toBeNull();
    expect(retryAfterSeconds(withLease.lease!, at(28_500))).toBe(2);
    expect(retryAfterSeconds(withLease.lease!, at(29_999))).toBe(1);
  });
});

describe('acknowledging', () => {
  it('by lease id moves the position to the last event handed out and ends the lease', () => {
    const acked = acknowledged(withLease, { leaseId: 'L1' }, at(1000));
    expect(E.isRight(acked) && { checkpoint: acked.right.checkpoint, lease: acked.right.lease, revision: acked.right.revision }).toEqual({
      checkpoint: 20n,
      lease: null,
      revision: 6,
    });
  });

  it('up to a position inside the lease moves the position there only', () => {
    const acked = acknowledged(withLease, { leaseId: 'L1', position: 13n }, at(1000));
    expect(E.isRight(acked) && acked.right.checkpoint).toBe(13n);
    const byPosition = acknowledged(withLease, { position: 11n }, at(1000));
    expect(E.isRight(byPosition) && byPosition.right.checkpoint).toBe(11n);
  });

  it('of an expired lease nobody took since still counts: its events were handled', () => {
    const acked = acknowledged(withLease, { leaseId: 'L1' }, at(60_000));
    expect(E.isRight(acked) && acked.right.checkpoint).toBe(20n);
  });

  it('refuses a lease handed out again, a position outside the lease, and an ack with no lease open', () => {
    const retaken = leased(withLease, { id: 'L2', first: 11n, last: 20n, count: 5 }, at(31_000));
    expect(acknowledged(retaken, { leaseId: 'L1' }, at(31_500))).toEqual(E.left(expect.objectContaining({ kind: 'lease_lost' })));
    expect(acknowledged(withLease, { leaseId: 'L1', position: 21n }, at(0))).toEqual(
      E.left(expect.objectContaining({ kind: 'out_of_range' })),
    );
    expect(acknowledged(withLease, { position: 10n }, at(0))).toEqual(E.left(expect.objectContaining({ kind: 'out_of_range' })));
    expect(acknowledged(base, { position: 12n }, at(0))).toEqual(E.left(expect.objectContaining({ kind: 'no_lease' })));
    expect(acknowledged(base, { leaseId: 'L1' }, at(0))).toEqual(E.left(expect.objectContaining({ kind: 'lease_lost' })));
  });
});
