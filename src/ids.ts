import { v7 } from 'uuid';

/**
 * The ids the preset commands mint (presets, versions, proposals, and their events): UUIDv7
 * (RFC 9562), a millisecond timestamp and then random bits, increasing within a process. Ids made
 * one after another sort together, so the indexes keyed by them (the read model's presets by id
 * and versions by preset, the event store's ids) take each new one on their last pages instead of
 * a random page of the whole index: a batch of creates dirties a few pages, not one per index
 * entry (docs/performance.md, "The write path"). They tell no more than the documents
 * do: a preset's and a version's `created_at`, an event's time. 74 bits stay random.
 */
export const newId = (): string => v7();
