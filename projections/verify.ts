import type { EventFeed } from '../src/eventstore/eventFeed';
import type { EventStore } from '../src/eventstore/eventStore';
import { PRESET_STREAM_PREFIX, presetStreamName } from '../src/presets/streamName';
import { presetDifferences } from './comparePreset';
import { ABSENT, show, type Difference } from './diff';
import { PROJECTOR_NAME } from './projector';
import { openMemoryReadModel } from './readmodel/memory';
import type { ReadModel } from './readmodel/readModel';
import { catchUp, type ProgressReporter } from './rebuild';

/**
 * Verify (`npm run verify`): folds every preset stream again with the same pure projection, into memory,
 * and compares each preset document and version with the read model's.
 *
 * The service may be running: a preset whose document differs is read again after the read
 * model's checkpoint; if the checkpoint has not reached the preset's last event yet, it is
 * "not compared" (lagging) rather than a difference, unless `strict`; if the preset has events
 * newer than those folded, it moved on during the verify and is not compared either.
 */
export interface VerifyReport {
  events: number;
  presets: number;
  versions: number;
  /** One line each: workspace, slug, field path, expected vs actual. */
  differences: string[];
  /** Events after the read model's checkpoint (at the start). */
  behind: number;
  checkpoint: bigint | null;
  head: bigint | null;
  lagging: number;
  movedOn: number;
}

export interface VerifyOptions {
  strict?: boolean;
  checkpointName?: string;
  progress?: ProgressReporter;
}

const PAGE = 1000;

export const verifyReadModel = async (
  eventStore: Pick<EventStore, 'read'> & EventFeed,
  readModel: ReadModel,
  options: VerifyOptions = {},
): Promise<VerifyReport> => {
  const { strict = false, checkpointName = PROJECTOR_NAME, progress: reportProgress } = options;
  const checkpoint = await readModel.checkpoint(checkpointName);
  const head = await eventStore.headPosition({ streamPrefix: PRESET_STREAM_PREFIX });
  const expected = openMemoryReadModel({ copies: false });
  const lastPosition = new Map<string, bigint>();
  let behind = 0;
  const progress = head === null ? undefined : reportProgress?.(head);
  const folded = await catchUp(eventStore, expected, {
    after: undefined,
    until: head,
    onPage: (n, first, position, batch) => {
      for (const e of batch) {
        lastPosition.set(e.stream, e.position);
        if (checkpoint === null || e.position > checkpoint) behind++;
      }
      progress?.update(n, first, position);
    },
  }).finally(() => progress?.stop());

  const report: VerifyReport = {
    events: folded.events,
    presets: 0,
    versions: 0,
    differences: [],
    behind,
    checkpoint,
    head,
    lagging: 0,
    movedOn: 0,
  };
  const line = (ws: string, slug: string, d: Difference) =>
    report.differences.push(`difference: workspace ${ws} preset ${slug} ${d.path}: expected ${show(d.expected)}, actual ${show(d.actual)}`);
  /** True when the stream has events after `revision`: the preset moved on since the fold. */
  const movedOn = async (ws: string, slug: string, revision: bigint | null) =>
    (await eventStore.read(presetStreamName(ws, slug), { fromRevision: revision === null ? 0n : revision + 1n, limit: 1 })).length > 0;

  const slugsByWorkspace = new Map<string, Set<string>>();
  for (const { record, versions } of expected.entries()) {
    const { workspace_id: ws, slug } = record.view;
    report.presets++;
    report.versions += versions.length;
    if (!slugsByWorkspace.has(ws)) slugsByWorkspace.set(ws, new Set());
    slugsByWorkspace.get(ws)!.add(slug);
    if ((await presetDifferences(readModel, record, versions)).out.length === 0) continue;
    // Read again once the checkpoint is known: the projector may have written in between.
    const checkpointNow = await readModel.checkpoint(checkpointName);
    const { out, actualRevision } = await presetDifferences(readModel, record, versions);
    if (out.length === 0) continue;
    const last = lastPosition.get(presetStreamName(ws, slug))!;
    if (!strict && (checkpointNow === null || checkpointNow < last)) report.lagging++;
    else if (actualRevision !== null && actualRevision > record.revision && (await movedOn(ws, slug, record.revision))) report.movedOn++;
    else out.forEach((d) => line(ws, slug, d));
  }
  // Presets the read model holds and the events do not (in the workspaces the events know).
  for (const [ws, slugs] of slugsByWorkspace) {
    if ((await readModel.listPresets(ws, { offset: 0, limit: 1 })).total <= slugs.size) continue;
    for (let offset = 0; ; offset += PAGE) {
      const { items } = await readModel.listPresets(ws, { offset, limit: PAGE });
      for (const view of items.filter((v) => !slugs.has(v.slug))) {
        if (await movedOn(ws, view.slug, null)) report.movedOn++;
        else line(ws, view.slug, { path: '(preset)', expected: ABSENT, actual: view.id });
      }
      if (items.length < PAGE) break;
    }
  }
  const checkpointAtEnd = await readModel.checkpoint(checkpointName);
  if (head !== null && checkpointAtEnd !== null && checkpointAtEnd >= head) report.behind = 0; // caught up meanwhile
  return report;
};
