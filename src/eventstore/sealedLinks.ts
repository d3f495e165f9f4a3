/**
 * Where the links of events stored before the hash chain existed are kept, beside the events and
 * never in them (those events are not rewritten): `npm run audit:seal` records them once, and
 * verifying and appending read them. Every event store adapter has this port.
 */
export interface SealedLinks {
  /** The sealed links of these positions (an event with its own link in its metadata has none). */
  sealedHashes(positions: readonly bigint[]): Promise<Map<bigint, string>>;
  /** Records links computed by the seal. */
  recordSeal(links: readonly { position: bigint; hash: string }[]): Promise<void>;
}
