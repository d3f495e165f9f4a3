import { parsePresetStreamName } from '../presets/streamName';
import { GENESIS_HASH, canonicalBody, linkHash, storedHash } from '../eventstore/hashChain';
import { checkpointWorkspace } from './checkpoint';
import type { VerifiableStore } from './verify';

/**
 * The log's chain state, from its first and last events: `empty`, `sealed` (both have a link,
 * their own or sealed) or `unsealed` (written, at least in part, before the chain existed).
 */
export type ChainState = 'empty' | 'sealed' | 'unsealed';

export const chainState = async (store: VerifiableStore): Promise<ChainState> => {
  const [first] = await store.readAll({ limit: 1 });
  const [last] = await store.readAllBackwards({ limit: 1 });
  if (!first || !last) return 'empty';
  const unlinked = [first, last].filter((e) => storedHash(e.metadata) === undefined);
  if (unlinked.length === 0) return 'sealed';
  const sealed = await store.sealedHashes(unlinked.map((e) => e.position));
  return unlinked.every((e) => sealed.has(e.position)) ? 'sealed' : 'unsealed';
};

export const UNSEALED_MESSAGE =
  'the event log was written before events carried a hash chain: stop the service, run `npm run audit:seal` once, then start it again';

export interface SealReport {
  state: 'already_sealed' | 'empty' | 'sealed';
  /** Events whose links were recorded beside them. */
  sealed: number;
  streams: number;
  checkpoints: number;
}

/**
 * Seals a log written before the chain: computes every stream's chain over the events as they are
 * (rewriting none of them), records the links beside them, then a first checkpoint per workspace.
 * An event that already has a link must match the chain computed up to it.
 */
export const sealLog = async (
  store: VerifiableStore,
  { now = new Date(), onProgress }: { now?: Date; onProgress?: (events: number) => void } = {},
): Promise<SealReport> => {
  const state = await chainState(store);
  if (state !== 'unsealed') return { state: state === 'empty' ? 'empty' : 'already_sealed', sealed: 0, streams: 0, checkpoints: 0 };
  const until = (await store.headPosition())!;
  const workspaces = new Set<string>();
  let stream: string | undefined;
  let previous = GENESIS_HASH;
  let sealed = 0;
  let streams = 0;
  let seen = 0;
  for await (const page of store.readStreams({ until, pageSize: 2000 })) {
    const links: { position: bigint; hash: string }[] = [];
    const already = await store.sealedHashes(page.map((e) => e.position));
    for (const e of page) {
      if (e.stream !== stream) {
        stream = e.stream;
        previous = GENESIS_HASH;
        streams++;
        const parsed = parsePresetStreamName(e.stream);
        if (parsed) workspaces.add(parsed.workspaceId);
      }
      const hash = linkHash(previous, canonicalBody(e));
      const own = storedHash(e.metadata) ?? already.get(e.position);
      if (own !== undefined && own !== hash)
        throw new Error(`${e.stream}@${e.revision} has a chain hash that does not match its events: run npm run audit:verify`);
      if (own === undefined) links.push({ position: e.position, hash });
      previous = hash;
    }
    await store.recordSeal(links);
    sealed += links.length;
    seen += page.length;
    onProgress?.(seen);
  }
  let checkpoints = 0;
  for (const workspaceId of workspaces) {
    const made = await checkpointWorkspace(store, workspaceId, { through: until, actorUserId: 'audit:seal', requestId: 'audit-seal', now });
    if (made) checkpoints++;
  }
  return { state: 'sealed', sealed, streams, checkpoints };
};
