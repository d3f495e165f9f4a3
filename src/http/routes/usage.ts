import Router from '@koa/router';
import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import type { ReadModelQueries } from '../../../projections/readmodel/readModel';
import { integer, refine } from '../../formats/codecs';
import { LABEL, SLUG } from '../../presets/names';
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
  readModel: Pick<ReadModelQueries, 'getPreset'>;
  bodyLimitBytes: number;
  clock?: () => Date;
}

const HOUR_MS = 3_600_000;
/** At most this long a window of one usage query. */
export const MAX_USAGE_DAYS = 31;
/** At most this many counts in one report. */
export const MAX_REPORTED_COUNTS = 1000;

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
    const latestHour = Math.floor(clock().getTime() / HOUR_MS) * HOUR_MS + HOUR_MS;
    const problems: ValidationProblem[] = [];
    const ids = new Map<string, string | null>();
    const counts: UsageCount[] = [];
    for (const [i, c] of decoded.right.counts.entries()) {
      if (Date.parse(c.hour) > latestHour) problems.push({ path: `$.counts[${i}].hour`, message: 'is in the future' });
      if (!ids.has(c.slug)) ids.set(c.slug, (await deps.readModel.getPreset(workspaceId, c.slug))?.view.id ?? null);
      const presetId = ids.get(c.slug);
      if (!presetId) problems.push({ path: `$.counts[${i}].slug`, message: `no preset ${JSON.stringify(c.slug)} in this workspace` });
      else counts.push({ workspaceId, presetId, label: c.label, version: c.version, hour: c.hour, count: c.count });
    }
    if (problems.length > 0) throw badRequest('the usage report names what cannot be counted; nothing was counted', problems);
    await deps.usage.add(counts);
    ctx.status = 204;
  });
};
