import type { FeedEvent, StoredFeedEvent } from '../eventstore/eventFeed';
import { jsonSpan } from '../jsonSpan';
import { decodePresetEvent as decodeEvent, type StoredPresetEvent, type VersionData } from './events';
import { parsedEvent } from '../eventstore/eventFeed';

/**
 * Decoding events from the text the store keeps, for the passes over the whole log that only carry
 * a version's config from the event to a document (a rebuild, verify): the config, most of such an
 * event's bytes, is found in the stored text (`jsonSpan`) and kept as that text (`RawJson`), and
 * only the rest of the event is parsed, upcast and checked by the same codecs as `decodeEvent`. The
 * config's own members are not checked: its codec asks for an object and nothing more, and a span
 * that is not one is parsed the ordinary way. The document made from it (documentJson.ts) is the
 * same text the live projector writes, which parses the config and serializes it again: so the
 * config's text is kept only where serializing its parse gives that text back: the text as the
 * embedded store keeps it (JSON.stringify's), and the canonical text of events stored by 0.1.0
 * when it has no integer-like key (JavaScript puts those first).
 */

/** A JSON object kept as its text, not parsed: a version's config from the log on its way to a document. */
export class RawJson {
  constructor(readonly text: string) {}
  /** Where something serializes it without knowing it (documentJson.ts splices the text instead): the value it is. */
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

export const isRawJson = (value: unknown): value is RawJson => value instanceof RawJson;

/** The event types whose data carries a version (`version.config`). */
const WITH_VERSION = new Set(['PresetCreated', 'PresetVersionAdded']);
const CONFIG = ['version', 'config'] as const;

/**
 * An integer-like key (an array index, such as logit_bias's token ids): JavaScript orders those
 * first, canonical JSON by their text. A quote after `{` or `,` opens a key: inside a string a
 * quote is always escaped, so no string value can look like one.
 */
const INTEGER_KEY = /[{,]"(?:0|[1-9]\d*)":/;

/** The event as `decodeEvent` makes it, its config kept as its text where that text is what serializing it gives. */
export const decodeStoredEvent = (e: StoredFeedEvent): StoredPresetEvent => {
  const span = WITH_VERSION.has(e.type) ? jsonSpan(e.data, CONFIG) : undefined;
  if (!span || e.data.charCodeAt(span.start) !== 0x7b || e.data.charCodeAt(span.end - 1) !== 0x7d) return decodeEvent(parsedEvent(e));
  const config = e.data.slice(span.start, span.end);
  if (INTEGER_KEY.test(config)) return decodeEvent(parsedEvent(e));
  // The rest of the event, with an empty object where the config was, through the codecs.
  const decoded = decodeEvent(parsedEvent(e, JSON.parse(`${e.data.slice(0, span.start)}{}${e.data.slice(span.end)}`)));
  const { event } = decoded;
  if (event.type !== 'PresetCreated' && event.type !== 'PresetVersionAdded') return decoded; // not reached: WITH_VERSION
  // The config's type is an object of anything; in its place, the text of the one it is.
  const raw = new RawJson(config) as unknown as VersionData['config'];
  const data = { ...event.data, version: { ...event.data.version, config: raw } };
  return { ...decoded, event: { ...event, data } as typeof event };
};

/** An event of either kind a feed or stream reader hands out, decoded. */
export const decodeFeedEvent = (e: FeedEvent): StoredPresetEvent => ('stored' in e ? decodeStoredEvent(e) : decodeEvent(e));
