import type { EventFeed } from '../src/eventstore/eventFeed';
import type { ShareRunner as SharesRunner } from '../src/threads/shares';
import type { EventStore } from '../src/eventstore/eventStore';
import { readStreamsToFold, type StreamReader } from '../src/eventstore/streamReader';
import { presetStreamName } from '../src/presets/streamName';
import { presetDifferences } from './comparePreset';
import { ABSENT, show, type Difference } from './diff';
import { presetViewJson, versionViewJson } from './readmodel/documentJson';
import { foldStreams, type FoldedStream } from './foldStreams';
import { PAGE_EVENTS } from './loadStreams';
import { PROJECTOR_NAME } from './projector';
import type { PresetRecord, ReadModel, VersionView } from './readmodel/readModel';
import type { ProgressReporter } from './rebuild';
import { WORKSPACE_STREAM_PREFIX } from '../src/events/workspaceStreams';

/**
 * Verify (`npm run verify`): folds every preset stream again with the same pure projection, stream
 * by stream (foldStreams.ts, as a rebuild does), and compares each preset document and version with
 * the read model's as each stream ends. Memory: one page of events and one preset with its versions
 * per reader, a count of presets per workspace, and at most MAX_DIFFERENCE_LINES lines of report;
 * never the whole log. With `threads`, that many threads each verify one share of the streams
 * (verifyThreads.ts), on connections of their own.
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
  /** One line each: workspace, slug, field path, expected vs actual (the first MAX_DIFFERENCE_LINES). */
  differences: string[];
  /** How many differences there are, with those not kept as lines. */
  differenceCount: number;
  /** Events after the read model's checkpoint (at the start). */
  behind: number;
  checkpoint: bigint | null;
  head: bigint | null;
  lagging: number;
  movedOn: number;
}

/** Lines of differences a report keeps (the CLI prints fewer); the rest are counted. */
export const MAX_DIFFERENCE_LINES = 10_000;

export interface VerifyOptions {
  strict?: boolean;
  checkpointName?: string;
  progress?: ProgressReporter;
  /** Verify in threads, one share of the streams each (verifyThreads.ts). */
  threads?: ShareRunner;
}

/** What verifying one share of the streams found: merged into the report. */
export type ShareReport = Omit<VerifyReport, 'checkpoint' | 'head'> & {
  /** Presets folded, per workspace: the read model should list no more. */
  presetsByWorkspace: Record<string, number>;
};

export interface ShareOptions {
  head: bigint;
  checkpoint: bigint | null;
  strict: boolean;
  checkpointName: string;
  share?: { index: number; count: number };
  pageSize?: number;
  onEvents?: (events: number) => void;
}

/** Runs `verifyShare` for each of its shares (elsewhere: threads) and gives their reports. */
export type ShareRunner = SharesRunner<Omit<ShareOptions, 'share' | 'onEvents'>, ShareReport>;

export type Verifiable = Pick<EventStore, 'read'> & Pick<EventFeed, 'headPosition' | 'readAll'> & StreamReader;

const PAGE = 1000;

const emptyShare = (): ShareReport => ({
  events: 0,
  presets: 0,
  versions: 0,
  differences: [],
  differenceCount: 0,
  behind: 0,
  lagging: 0,
  movedOn: 0,
  presetsByWorkspace: {},
});

const differenceLine = (report: Pick<ShareReport, 'differences' | 'differenceCount'>, ws: string, slug: string, d: Difference) => {
  report.differenceCount++;
  if (report.differences.length < MAX_DIFFERENCE_LINES)
    report.differences.push(`difference: workspace ${ws} preset ${slug} ${d.path}: expected ${show(d.expected)}, actual ${show(d.actual)}`);
};

/** True when the read model holds this preset and its versions as exactly the text the events make (the common case). */
const storedAsFolded = async (readModel: ReadModel, record: PresetRecord, versions: VersionView[]): Promise<boolean> => {
  const actual = await readModel.getPresetJson(record.view.workspace_id, record.view.slug);
  if (!actual || actual.revision !== record.revision || actual.json !== presetViewJson(record.view)) return false;
  const stored = await readModel.listVersionsJson(record.view.id, { offset: 0, limit: versions.length + 1 });
  return (
    stored.length === versions.length &&
    stored.every((s, i) => s.version === versions[i]!.version && s.json === versionViewJson(versions[i]!))
  );
};

/** Folds the streams of one share (all without `share`) and compares each preset as its stream ends. */
export const verifyShare = async (eventStore: Verifiable, readModel: ReadModel, options: ShareOptions): Promise<ShareReport> => {
  const { head, checkpoint, strict, checkpointName, share, pageSize = PAGE_EVENTS, onEvents } = options;
  const report = emptyShare();
  /** True when the stream has events after `revision`: the preset moved on since the fold. */
  const movedOn = async (ws: string, slug: string, revision: bigint) =>
    (await eventStore.read(presetStreamName(ws, slug), { fromRevision: revision + 1n, limit: 1 })).length > 0;

  const compare = async ({ record, versions, last }: FoldedStream) => {
    if (!record) return;
    const { workspace_id: ws, slug } = record.view;
    report.presets++;
    report.versions += versions.length;
    report.presetsByWorkspace[ws] = (report.presetsByWorkspace[ws] ?? 0) + 1;
    // Text first: equal text is an equal document; different text is compared field by field.
    if (await storedAsFolded(readModel, record, versions)) return;
    if ((await presetDifferences(readModel, record, versions)).out.length === 0) return;
    // Read again once the checkpoint is known: the projector may have written in between.
    const checkpointNow = await readModel.checkpoint(checkpointName);
    const { out, actualRevision } = await presetDifferences(readModel, record, versions);
    if (out.length === 0) return;
    if (!strict && (checkpointNow === null || checkpointNow < last)) report.lagging++;
    else if (actualRevision !== null && actualRevision > record.revision && (await movedOn(ws, slug, record.revision))) report.movedOn++;
    else out.forEach((d) => differenceLine(report, ws, slug, d));
  };

  const pages = readStreamsToFold(eventStore, { until: head, streamPrefix: WORKSPACE_STREAM_PREFIX, pageSize, share });
  async function* counted() {
    for await (const page of pages) {
      if (checkpoint === null) report.behind += page.length;
      else for (const e of page) if (e.position > checkpoint) report.behind++;
      yield page;
    }
  }
  report.events = await foldStreams(
    counted(),
    async (_changes, n) => onEvents?.(n),
    async (folded) => compare(folded),
  );
  return report;
};

const merge = (into: ShareReport, from: ShareReport) => {
  for (const key of ['events', 'presets', 'versions', 'differenceCount', 'behind', 'lagging', 'movedOn'] as const) into[key] += from[key];
  into.differences.push(...from.differences.slice(0, MAX_DIFFERENCE_LINES - into.differences.length));
  for (const [ws, n] of Object.entries(from.presetsByWorkspace)) into.presetsByWorkspace[ws] = (into.presetsByWorkspace[ws] ?? 0) + n;
};

export const verifyReadModel = async (eventStore: Verifiable, readModel: ReadModel, options: VerifyOptions = {}): Promise<VerifyReport> => {
  const { strict = false, checkpointName = PROJECTOR_NAME, progress: reportProgress, threads } = options;
  const checkpoint = await readModel.checkpoint(checkpointName);
  const head = await eventStore.headPosition({ streamPrefix: WORKSPACE_STREAM_PREFIX });
  const all = emptyShare();
  if (head !== null) {
    // Streams do not come in position order: progress counts events against the position range.
    const first = (await eventStore.readAll({ limit: 1, streamPrefix: WORKSPACE_STREAM_PREFIX }))[0]?.position ?? head;
    const progress = reportProgress?.(head);
    let done = 0;
    const onEvents = (n: number) => {
      done += n;
      progress?.update(done, first, first + BigInt(done) - 1n > head ? head : first + BigInt(done) - 1n);
    };
    try {
      const shared = { head, checkpoint, strict, checkpointName };
      const reports = threads ? await threads(shared, onEvents) : [await verifyShare(eventStore, readModel, { ...shared, onEvents })];
      for (const r of reports) merge(all, r);
    } finally {
      progress?.stop();
    }
    // Presets the read model holds and the events do not (in the workspaces the events know): only
    // looked for where the read model lists more presets than the events made.
    for (const [ws, folded] of Object.entries(all.presetsByWorkspace)) {
      if ((await readModel.listPresets(ws, { offset: 0, limit: 1 })).total <= folded) continue;
      for (let offset = 0; ; offset += PAGE) {
        const { items } = await readModel.listPresets(ws, { offset, limit: PAGE });
        for (const view of items) {
          const firstEvent = (await eventStore.read(presetStreamName(ws, view.slug), { fromRevision: 0n, limit: 1 }))[0];
          if (firstEvent && firstEvent.position <= head) continue; // folded and compared above
          if (firstEvent)
            all.movedOn++; // created while verify ran
          else differenceLine(all, ws, view.slug, { path: '(preset)', expected: ABSENT, actual: view.id });
        }
        if (items.length < PAGE) break;
      }
    }
  }
  const checkpointAtEnd = await readModel.checkpoint(checkpointName);
  const behind = head !== null && checkpointAtEnd !== null && checkpointAtEnd >= head ? 0 : all.behind; // caught up meanwhile
  const { presetsByWorkspace: _, ...counts } = all;
  return { ...counts, behind, checkpoint, head };
};
