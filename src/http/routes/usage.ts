import Router from '@koa/router';
import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import type { ReadModelQueries } from '../../../projections/readmodel/readModel';
import { integer, refine } from '../../formats/codecs';
import { LABEL, RESERVED_LABELS, SLUG } from '../../presets/names';
import type { UsageCount, UsageStore } from '../../usage/usageStore';
import { formatErrors, type ValidationProblem } from '../../validation';
import { badRequest, notFound } from '../errors';
import { requireScope } from '../middleware/auth';
import { jsonBody } from '../middleware/jsonBody';
import { queryReader } from '../query';
import type { AppContext, AppState } from '../types';

/**
 * What was served: `GET /api/v1/presets/{slug}/usage` sums the resolutions answered for a preset
 * per hour, label and version, from the usage store (src/usage/); `POST /api/v1/usage` is how
 * `presets/client` adds the resolutions it answered in a gateway's process. Metrics, never events.
 */
export interface UsageDeps {
  usage: Pick<UsageStore, 'add' | 'query'>;
  readModel: Pick<ReadModelQueries, 'getPreset' | 'getLatestVersion'>;
  bodyLimitBytes: number;
  clock?: () => Date;
}

const HOUR_MS = 3_600_000;
/** At most this long a window of one usage query. */
export const MAX_USAGE_DAYS = 31;
/** At most this many counts in one report. */
export const MAX_REPORTED_COUNTS = 1000;
/** A report adds to the hours that start at most this long ago (and to the current one). */
export const MAX_REPORT_AGE_HOURS = 48;
/** At most this many distinct (label, version) counts of one preset in one hour, over all reports. */
export const MAX_COUNTS_PER_PRESET_HOUR = 100;

const HOUR = /^\d{4}-\d{2}-\d{2}T\d{2}:00:00\.000Z$/;
const hourStart = refine(
  t.string,
  (s) => HOUR.test(s) && !Number.isNaN(Date.parse(s)),
  'the start of an hour, as 2026-11-24T13:00:00.000Z',
  {
    format: 'date-time',
  },
);
const ReportedCount = t.type(
  {
    slug: refine(t.string, (s) => SLUG.test(s), 'a preset slug', { pattern: SLUG.source }),
    label: t.union([refine(t.string, (s) => LABEL.test(s), 'a label', { pattern: LABEL.source }), t.null]),
    version: refine(integer, (n) => n >= 1, 'a version number from 1', { minimum: 1 }),
    hour: hourStart,
    count: refine(integer, (n) => n >= 1 && n <= 1_000_000_000, 'a count from 1 to 1,000,000,000', { minimum: 1, maximum: 1_000_000_000 }),
  },
  'ReportedUsageCount',
);
export const UsageReport = t.type(
  {
    counts: refine(t.array(ReportedCount), (a) => a.length <= MAX_REPORTED_COUNTS, `at most ${MAX_REPORTED_COUNTS} counts`, {
      maxItems: MAX_REPORTED_COUNTS,
    }),
  },
  'UsageReport',
);

const UsageRow = t.type({ hour: t.string, label: t.union([t.string, t.null]), version: integer, count: integer }, 'UsageHour');
const UsageTotal = t.type({ label: t.union([t.string, t.null]), version: integer, count: integer }, 'UsageTotal');
export const UsageAnswer = t.type(
  { data: t.type({ from: t.string, to: t.string, hours: t.array(UsageRow), totals: t.array(UsageTotal) }, 'Usage') },
  'UsageAnswer',
);

export const usageRoutes = (router: Router<AppState, AppContext>, deps: UsageDeps) => {
  const read = requireScope('presets:read');
  const clock = deps.clock ?? (() => new Date());

  /** Refuses a report that would make more than MAX_COUNTS_PER_PRESET_HOUR distinct counts of a preset in an hour. */
  const capRows = async (workspaceId: string, counts: UsageCount[]) => {
    const reported = new Map<string, Set<string>>();
    for (const c of counts) {
      const at = `${c.presetId}\n${c.hour}`;
      if (!reported.has(at)) reported.set(at, new Set());
      reported.get(at)!.add(`${c.label ?? ''}\n${c.version}`);
    }
    for (const [at, rows] of reported) {
      const [presetId, hour] = at.split('\n') as [string, string];
      const start = new Date(hour);
      const held = await deps.usage.query(workspaceId, presetId, start, new Date(start.getTime() + HOUR_MS));
      const all = new Set([...held.map((c) => `${c.label ?? ''}\n${c.version}`), ...rows]);
      if (all.size > MAX_COUNTS_PER_PRESET_HOUR) {
        throw badRequest(
          `a preset has at most ${MAX_COUNTS_PER_PRESET_HOUR} distinct (label, version) counts in an hour; this report would make ${all.size} in ${hour}; nothing was counted`,
          [{ path: '$.counts', message: `at most ${MAX_COUNTS_PER_PRESET_HOUR} distinct (label, version) counts per preset and hour` }],
        );
      }
    }
  };

  router.get('/api/v1/presets/:slug/usage', read, async (ctx) => {
    const query = queryReader(ctx.query);
    const givenTo = query.timestamp('to');
    const givenFrom = query.timestamp('from');
    const to = givenTo ?? clock();
    // Counts are kept by hour: the window starts at the start of the hour `from` is in.
    const from = new Date(Math.floor((givenFrom ?? new Date(to.getTime() - 24 * HOUR_MS)).getTime() / HOUR_MS) * HOUR_MS);
    if (givenFrom && givenTo && givenFrom >= givenTo) query.problem('from', 'must be before to');
    else if (to.getTime() - from.getTime() > MAX_USAGE_DAYS * 24 * HOUR_MS)
      query.problem('from', `the window may be at most ${MAX_USAGE_DAYS} days`);
    query.done();
    const slug = ctx.params.slug!;
    const { workspaceId } = ctx.state;
    const preset = await deps.readModel.getPreset(workspaceId, slug);
    if (!preset) throw notFound(`no preset ${JSON.stringify(slug)} in this workspace`);
    const counts = await deps.usage.query(workspaceId, preset.view.id, from, to);
    const totals = new Map<string, { label: string | null; version: number; count: number }>();
    for (const c of counts) {
      const key = `${c.label ?? ''}\n${c.version}`;
      const total = totals.get(key);
      if (total) total.count += c.count;
      else totals.set(key, { label: c.label, version: c.version, count: c.count });
    }
    const body: t.TypeOf<typeof UsageAnswer> = {
      data: {
        from: from.toISOString(),
        to: to.toISOString(),
        hours: counts.map(({ hour, label, version, count }) => ({ hour, label, version, count })),
        totals: [...totals.values()],
      },
    };
    ctx.body = body;
  });

  router.post('/api/v1/usage', read, jsonBody(deps.bodyLimitBytes), async (ctx) => {
    const decoded = UsageReport.decode(ctx.state.body);
    if (E.isLeft(decoded)) {
      throw badRequest('the body must be {"counts": [{"slug", "label", "version", "hour", "count"}, …]}', formatErrors(decoded.left));
    }
    const { workspaceId } = ctx.state;
    // These counts drive promote and abort (docs/rollouts.md): only what exists, in a window, in bounded numbers.
    const currentHour = Math.floor(clock().getTime() / HOUR_MS) * HOUR_MS;
    const earliestHour = currentHour - MAX_REPORT_AGE_HOURS * HOUR_MS;
    const problems: ValidationProblem[] = [];
    const presets = new Map<string, { id: string; labels: Record<string, unknown>; latest: number } | null>();
    const presetOf = async (slug: string) => {
      if (!presets.has(slug)) {
        const record = await deps.readModel.getPreset(workspaceId, slug);
        const latest = record ? ((await deps.readModel.getLatestVersion(record.view.id))?.version ?? 0) : 0;
        presets.set(slug, record ? { id: record.view.id, labels: record.view.labels ?? {}, latest } : null);
      }
      return presets.get(slug)!;
    };
    const counts: UsageCount[] = [];
    for (const [i, c] of decoded.right.counts.entries()) {
      const at = `$.counts[${i}]`;
      const preset = await presetOf(c.slug);
      if (!preset) {
        problems.push({ path: `${at}.slug`, message: `no preset ${JSON.stringify(c.slug)} in this workspace` });
        continue;
      }
      const hour = Date.parse(c.hour);
      if (c.version > preset.latest)
        problems.push({ path: `${at}.version`, message: `preset ${JSON.stringify(c.slug)} has no version ${c.version}` });
      else if (c.label !== null && !RESERVED_LABELS.includes(c.label) && !Object.hasOwn(preset.labels, c.label))
        problems.push({ path: `${at}.label`, message: `preset ${JSON.stringify(c.slug)} has no label ${JSON.stringify(c.label)}` });
      else if (hour > currentHour + HOUR_MS) problems.push({ path: `${at}.hour`, message: 'is in the future' });
      else if (hour < earliestHour)
        problems.push({
          path: `${at}.hour`,
          message: `is more than ${MAX_REPORT_AGE_HOURS} hours ago: a report adds to the last ${MAX_REPORT_AGE_HOURS} hours only`,
        });
      else counts.push({ workspaceId, presetId: preset.id, label: c.label, version: c.version, hour: c.hour, count: c.count });
    }
    if (problems.length > 0) throw badRequest('the usage report names what cannot be counted; nothing was counted', problems);
    await capRows(workspaceId, counts);
    await deps.usage.add(counts);
    ctx.status = 204;
  });
};
