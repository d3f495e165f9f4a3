import type { StoredFeedEvent } from '../eventFeed';

/**
 * An event as stored text, made by a constructor rather than an object literal. V8 counts, for each
 * object literal in the code, how many of its objects a scavenge finds alive, and once that is 85 %
 * of at least 100 it allocates that literal's objects straight in the old generation
 * ("allocation-site pretenuring"). A page of a thousand events is all alive while it is made into
 * an answer, so a literal here was pretenured at the first page; every event after it then held
 * its row's strings across scavenges into the old generation too, and a consumer group's drain ran
 * 23–28 full collections where it needs 2 (docs/performance.md, "Consumer groups and metrics").
 * Objects made by `new` have no allocation site to be pretenured.
 */
export class FeedEvent implements StoredFeedEvent {
  readonly stored = true;
  constructor(
    readonly id: string,
    readonly stream: StoredFeedEvent['stream'],
    readonly revision: bigint,
    readonly position: bigint,
    readonly type: string,
    readonly data: string,
    readonly metadata: string,
    readonly recordedAt: Date,
  ) {}
}
