import type { FetchedEvent } from '../consumerGroups/consumerGroups';
import { feedEventJsonText } from '../workspaceLog/eventJson';

/**
 * A consumer group's fetch answer, `{"data":[…],"lease":…}`, as bytes, in two steps: the head, up
 * to `"lease":`, made from the events (ahead of the fetch, when the batch was read ahead), then the
 * lease written after it when the fetch leases the batch. Each event's text is encoded straight
 * into one buffer of the right size, with room left after the head for the lease: joining a
 * thousand texts and encoding the join, then copying the answer together, cost several times as
 * much (docs/performance.md, "Consumer groups and metrics").
 */
const HEAD_OPEN = '{"data":[';
const HEAD_CLOSE = '],"lease":';
/** A lease's JSON is under 200 bytes (a UUID, a time, two positions, a count). */
const LEASE_ROOM = 256;

/** The answer's head: a view of its bytes, with LEASE_ROOM spare bytes after it in the same memory. */
export const fetchAnswerHead = (events: FetchedEvent[]): Buffer => {
  const texts = events.map(feedEventJsonText);
  let size = HEAD_OPEN.length + HEAD_CLOSE.length + Math.max(texts.length - 1, 0); // and a comma between two events
  for (const text of texts) size += Buffer.byteLength(text);
  const bytes = Buffer.allocUnsafeSlow(size + LEASE_ROOM); // its own memory: the room after it is nobody else's
  let at = bytes.write(HEAD_OPEN);
  texts.forEach((text, i) => {
    if (i > 0) at += bytes.write(',', at);
    at += bytes.write(text, at);
  });
  at += bytes.write(HEAD_CLOSE, at);
  return bytes.subarray(0, at);
};

/**
 * The whole answer: the head, then the lease's JSON (null: none) and the closing brace, written
 * into the head's room (so a head makes one answer).
 */
export const fetchAnswer = (head: Buffer, lease: unknown): Buffer => {
  const tail = `${JSON.stringify(lease)}}`;
  const room = head.buffer.byteLength - head.byteOffset - head.length;
  if (Buffer.byteLength(tail) > room) return Buffer.concat([head, Buffer.from(tail)]);
  const answer = Buffer.from(head.buffer, head.byteOffset, head.length + room);
  return answer.subarray(0, head.length + answer.write(tail, head.length));
};
