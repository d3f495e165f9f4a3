import Router from '@koa/router';
import type * as t from 'io-ts';
import type { Page, ReadModelQueries } from '../../../projections/readmodel/readModel';
import type { PresetStatus } from '../../presets/events';
import { ApiError, badRequest, notFound } from '../errors';
import { answeredNotModified, etagOf } from '../etag';
import { sendDataJson, sendDocument } from '../jsonData';
import { requireScope } from '../middleware/auth';
import { queryReader } from '../query';
import type { PresetList, VersionAnswer, VersionList } from '../schemas';
import type { AppContext, AppState } from '../types';
import { isProblem, parseMoment, type PresetAsOfReader } from '../asOf';

export interface ReadDeps {
  readModel: ReadModelQueries;
  /**
   * The feed position every event up to which the read model reflects (its projector's
   * checkpoint), read before a list: a consumer that lists, then follows the feed after it, misses nothing.
   */
  projectedPosition?: () => Promise<bigint | null>;
  /** `?as_of=`: the preset folded from its events up to a moment; absent, `as_of` is refused. */
  presetAsOf?: PresetAsOfReader;
}

/** The header of a list answer that gives the read model's feed position (ReadDeps.projectedPosition). */
export const FEED_POSITION_HEADER = 'Feed-Position';

/** Reads, all from the read model, all scoped to the caller's workspace. */
export const readRoutes = (router: Router<AppState, AppContext>, { readModel, projectedPosition, presetAsOf }: ReadDeps) => {
  const read = requireScope('presets:read');

  /** `as_of` given: the moment, with the query without it; absent: null. */
  const asOfQuery = (query: Record<string, string | string[] | undefined>) => {
    const { as_of: raw, ...rest } = query;
    if (raw === undefined) return { at: null, rest };
    const at = parseMoment(raw, 'as_of');
    if (isProblem(at)) throw badRequest('invalid query parameters', [at]);
    if (!presetAsOf) throw badRequest('invalid query parameters', [{ path: 'as_of', message: 'not available here' }]);
    return { at, rest };
  };
  /** The preset as it stood at a moment, or a 404 saying it did not exist yet. */
  const presetThen = async (workspaceId: string, slug: string, at: Date) => {
    const then = await presetAsOf!(workspaceId, slug, at);
    if (!then) throw notFound(`no preset ${JSON.stringify(slug)} in this workspace at ${at.toISOString()}`);
    return then;
  };

  router.get('/api/v1/presets', read, async (ctx) => {
    const statuses = parseStatusFilter(ctx.query.status);
    const search = parseSearch(ctx.query.q);
    const page = parsePage(ctx.query);
    const position = await projectedPosition?.();
    const { items, total } = await readModel.listPresets(ctx.state.workspaceId, page, statuses, search);
    if (position !== undefined && position !== null) ctx.set(FEED_POSITION_HEADER, position.toString());
    const body: t.TypeOf<typeof PresetList> = { data: items, total_count: total };
    ctx.body = body;
  });

  const archivedNow = (slug: string) =>
    new ApiError(404, `preset ${JSON.stringify(slug)} is archived; restore it, or read it with ?include_archived=true`, {
      reason: 'preset_archived',
    });
  const noSuchPreset = (slug: string) => notFound(`no preset ${JSON.stringify(slug)} in this workspace`);
  const presetOf = async (workspaceId: string, slug: string) => {
    const record = await readModel.getPreset(workspaceId, slug);
    if (!record) throw noSuchPreset(slug);
    return record;
  };

  router.get('/api/v1/presets/:slug', read, async (ctx) => {
    const slug = ctx.params.slug!;
    const { at, rest } = asOfQuery(ctx.query);
    const q = queryReader(rest);
    const includeArchived = q.oneOf('include_archived', ['true', 'false'], 'false') === 'true';
    q.done();
    if (at) {
      // Archived now: hidden unless asked for, whatever the preset was then.
      if (!includeArchived && (await readModel.getPreset(ctx.state.workspaceId, slug))?.view.status === 'archived') throw archivedNow(slug);
      // From the events, not the read model: what the preset was then (its labels included).
      const { record, json } = await presetThen(ctx.state.workspaceId, slug, at);
      if (answeredNotModified(ctx, etagOf(record.revision))) return;
      sendDataJson(ctx, json);
      return;
    }
    const preset = await readModel.getPresetJson(ctx.state.workspaceId, slug);
    if (!preset) throw noSuchPreset(slug);
    // As OpenRouter answers: an archived preset is hidden from the get unless asked for.
    if (!includeArchived && statusOfJson(preset.json) === 'archived') throw archivedNow(slug);
    // The revision the read model reflects: If-Match with it fails (412) if the stream has moved on.
    if (answeredNotModified(ctx, etagOf(preset.revision))) return;
    sendDocument(ctx, preset);
  });

  router.get('/api/v1/presets/:slug/versions', read, async (ctx) => {
    const { at, rest } = asOfQuery(ctx.query);
    const page = parsePage(rest);
    if (at) {
      const { record, versions } = await presetThen(ctx.state.workspaceId, ctx.params.slug!, at);
      if (answeredNotModified(ctx, etagOf(record.revision))) return;
      const body: t.TypeOf<typeof VersionList> = {
        data: versions.slice(page.offset, page.offset + page.limit),
        total_count: versions.length,
      };
      ctx.body = body;
      return;
    }
    const { view, revision } = await presetOf(ctx.state.workspaceId, ctx.params.slug!);
    // Versions are only ever added, each by an event of the preset's stream: the list is as new as the revision.
    if (answeredNotModified(ctx, etagOf(revision))) return;
    const { items, total } = await readModel.listVersions(view.id, page);
    const body: t.TypeOf<typeof VersionList> = { data: items, total_count: total };
    ctx.body = body;
  });

  router.get('/api/v1/presets/:slug/versions/:version', read, async (ctx) => {
    const raw = ctx.params.version!;
    const number = /^[1-9]\d{0,8}$/.test(raw) ? Number(raw) : NaN;
    if (Number.isNaN(number))
      throw badRequest('the version must be a whole number from 1', [{ path: 'version', message: `got ${JSON.stringify(raw)}` }]);
    const { at } = asOfQuery(ctx.query);
    if (at) {
      const { record, versions } = await presetThen(ctx.state.workspaceId, ctx.params.slug!, at);
      const version = versions.find((v) => v.version === number);
      if (!version) throw notFound(`preset ${JSON.stringify(record.view.slug)} had no version ${number} at ${at.toISOString()}`);
      if (answeredNotModified(ctx, `"${version.id}"`)) return;
      const body: t.TypeOf<typeof VersionAnswer> = { data: version };
      ctx.body = body;
      return;
    }
    const { view } = await presetOf(ctx.state.workspaceId, ctx.params.slug!);
    const version = await readModel.getVersion(view.id, number);
    if (!version) throw notFound(`preset ${JSON.stringify(view.slug)} has no version ${number}`);
    // A version never changes: its id names it for good.
    if (answeredNotModified(ctx, `"${version.id}"`)) return;
    const body: t.TypeOf<typeof VersionAnswer> = { data: version };
    ctx.body = body;
  });
};

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

/** `offset` ≥ 0 and `limit` 1–100 (default 50), each at most once. */
export const parsePage = (query: Record<string, string | string[] | undefined>): Page => {
  const q = queryReader(query);
  const page = { offset: q.int('offset', 0, 999_999_999, 0), limit: q.int('limit', 1, MAX_LIMIT, DEFAULT_LIMIT) };
  q.done();
  return page;
};

/** Archived presets are hidden unless asked for; `all` lists every status. */
export const LISTED_BY_DEFAULT: readonly PresetStatus[] = ['active', 'disabled'];
const STATUS_FILTERS: Record<string, readonly PresetStatus[] | undefined> = {
  active: ['active'],
  disabled: ['disabled'],
  archived: ['archived'],
  all: undefined,
};

export const parseStatusFilter = (raw: string | string[] | undefined): readonly PresetStatus[] | undefined => {
  if (raw === undefined) return LISTED_BY_DEFAULT;
  if (typeof raw === 'string' && Object.hasOwn(STATUS_FILTERS, raw)) return STATUS_FILTERS[raw];
  throw badRequest('invalid query parameters', [
    { path: 'status', message: `must be one of ${Object.keys(STATUS_FILTERS).join(', ')}, got ${JSON.stringify(raw)}` },
  ]);
};

export const MAX_SEARCH_CHARS = 200;

/** `q`: a part of the slug or the name to look for, ignoring case; empty or absent: every preset. */
export const parseSearch = (raw: string | string[] | undefined): string | undefined => {
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw === 'string' && [...raw].length <= MAX_SEARCH_CHARS) return raw;
  throw badRequest('invalid query parameters', [
    { path: 'q', message: typeof raw === 'string' ? `at most ${MAX_SEARCH_CHARS} characters` : 'give it once' },
  ]);
};

/**
 * A stored document's status without parsing it: the projection writes `id`, `name`, `slug` and
 * `description` (strings or null, in which a quote is always escaped) before `status`, so the first
 * `"status":"` of the text is the document's own. Parsed when the text is not in that shape.
 */
export const statusOfJson = (json: string): string => {
  const at = json.indexOf(STATUS_KEY);
  if (at >= 0) {
    const start = at + STATUS_KEY.length;
    const end = json.indexOf('"', start);
    const before = json.slice(0, at);
    if (end > start && !before.includes('{', 1) && !before.includes('[')) return json.slice(start, end);
  }
  return String((JSON.parse(json) as { status?: unknown }).status);
};
const STATUS_KEY = '"status":"';
