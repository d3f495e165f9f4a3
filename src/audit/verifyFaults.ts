/** What `audit:verify` names when the log does not match its chains or checkpoints (src/audit/verify.ts). */
export type FaultKind =
  | 'hash_mismatch' // the event's link is not SHA-256(previous link ‖ its text as stored): it, or one before it, changed
  | 'missing_event' // a revision is missing from the stream (deleted, or moved)
  | 'unsealed' // the event has no link at all (a log written before the chain, not sealed)
  | 'checkpoint_digest' // a checkpoint's digest is not the hash of its heads
  | 'checkpoint_head_missing' // a checkpoint names a head the stream no longer has (its tail was removed)
  | 'checkpoint_head_mismatch'; // the stream's event at a checkpointed head has another link

export interface ChainFault {
  kind: FaultKind;
  stream: string;
  revision: number;
  position?: string;
  message: string;
}

/** Thrown inside a verify to stop at the first fault; the report carries `fault`. */
export class Fault {
  constructor(readonly fault: ChainFault) {}
}

export const fault = (kind: FaultKind, e: { stream: string; revision: bigint | number; position?: bigint }, message: string): Fault =>
  new Fault({
    kind,
    stream: e.stream,
    revision: Number(e.revision),
    ...(e.position !== undefined ? { position: e.position.toString() } : {}),
    message,
  });

/** The faults of a checkpoint, not of a chain: named after any chain's, which explains them. */
export const CHECKPOINT_FAULTS: ReadonlySet<FaultKind> = new Set([
  'checkpoint_digest',
  'checkpoint_head_missing',
  'checkpoint_head_mismatch',
]);
