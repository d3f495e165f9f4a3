import type { Position } from '@eventstore/db-client';

/**
 * EventStoreDB places an event in `$all` by two numbers, `{ commit, prepare }` (transaction-log
 * offsets, each an unsigned 64-bit integer); our interface has one bigint per position. Packing
 * them as `commit * 2^64 + prepare` is lossless and keeps the order `$all` uses (commit first,
 * then prepare), so comparing encoded positions compares EventStoreDB positions. The result can
 * exceed 2^64: like every position it leaves the process only as a decimal string.
 */
const SHIFT = 64n;
const MASK = (1n << SHIFT) - 1n;

export const encodePosition = ({ commit, prepare }: Position): bigint => {
  if (commit < 0n || commit > MASK || prepare < 0n || prepare > MASK) {
    throw new RangeError(`EventStoreDB position out of range: ${commit}/${prepare}`);
  }
  return (commit << SHIFT) | prepare;
};

export const decodePosition = (position: bigint): Position => {
  if (position < 0n || position >> (SHIFT * 2n) !== 0n) throw new RangeError(`not an EventStoreDB position: ${position}`);
  return { commit: position >> SHIFT, prepare: position & MASK };
};

/**
 * The server sends `Position.End` (both parts 2^64 - 1, i.e. -1 unsigned) when it does not know
 * where an event was committed (an event of an explicit transaction read from its stream, or an
 * append answered without one); the client passes that on as a number. Treat it as absent.
 */
export const knownPosition = (position: Position | undefined): Position | undefined =>
  position && position.commit !== MASK ? position : undefined;
