import Router from '@koa/router';
import * as E from 'fp-ts/Either';
import type { ParameterizedContext } from 'koa';
import { toDraft, type FormatName } from '../../formats';
import type { PresetCommandHandler } from '../../presets/handler';
import type { PresetVersionAdded, PresetCreated } from '../../presets/events';
import type { PresetJson } from '../../../projections/readmodel/readModel';
import { badRequest } from '../errors';
import type { PendingWrite } from '../schemas';
import { requireScope } from '../middleware/auth';
import { jsonBody } from '../middleware/jsonBody';
import { etagOf, parseIfMatch } from '../etag';
import { noteOf } from '../note';
import { sendDataJson } from '../jsonData';
import type { AppContext, AppState } from '../types';
import { dryRunAnswer, isDryRun } from './dryRun';
import { presetLocation, versionLocation } from './locations';
import { inferenceTemplate, readVersionBody, templateFormatOf, type VersionDraft } from './versionBody';

/** The three ways to create or version a preset: one route per request format. */
export const FORMAT_ROUTES: ReadonlyArray<[string, FormatName]> = [
  ['chat/completions', 'chat_completions'],
  ['messages', 'messages'],
  ['responses', 'responses'],
];

export interface WriteDeps {
  handle: PresetCommandHandler;
  waitForPreset: (workspaceId: string, slug: string, revision: bigint, timeoutMs: number) => Promise<PresetJson | null>;
  /** The preset's document at a revision of its stream, folded from the events (null when there is none). */
  presetAt?: (workspaceId: string, slug: string, revision: bigint) => Promise<PresetJson | null>;
  bodyLimitBytes: number;
  readYourWritesTimeoutMs: number;
}

type Ctx = ParameterizedContext<AppState, AppContext>;

/**
 * Who asks for a change, as every preset command's metadata says it: the request, the caller's user
 * and key, and what release control knows of the caller. The handler adds when, and the ids it chooses.
 */
export const requestedBy = (ctx: Ctx) => ({
  requestId: ctx.state.requestId,
  actorUserId: ctx.state.caller.userId,
  keyId: ctx.state.caller.keyId,
  mayRelease: ctx.state.caller.scopes.has('presets:release'),
  // Who else the caller counts as in release control: the users up their key's chain of makers.
  actorMakers: ctx.state.caller.makers ?? [],
});

/** The client's If-Match, as the command handler's options: a stale one is a 412. */
export const ifMatchOf = (ctx: Ctx) => ({ expectedRevision: parseIfMatch(ctx.get('If-Match')) });

/** A version drafted from a request: previewed (?dry_run=true), or added and answered as the preset it left. Every version-making route's. */
export const versionAdder =
  (deps: WriteDeps) =>
  async (ctx: Ctx, slug: string, version: VersionDraft): Promise<void> => {
    const { format, draft, template, note } = version;
    if (isDryRun(ctx.query.dry_run)) {
      ctx.body = dryRunAnswer(format, draft, template, note);
      return;
    }
    const outcome = await deps.handle(
      {
        type: 'AddPresetVersion',
        data: {
          workspaceId: ctx.state.workspaceId,
          slug,
          config: draft.config,
          systemPrompt: draft.systemPrompt,
          templateFormat: template.templateFormat,
          variables: template.variables,
          messages: template.messages,
          note,
        },
        metadata: { ...requestedBy(ctx), sourceFormat: format },
      },
      ifMatchOf(ctx),
    );
    const event = outcome.events[0] as PresetCreated | PresetVersionAdded;
    const { id, number } = event.data.version;
    await answerWrite(ctx, deps, {
      slug,
      revision: outcome.revision,
      presetId: event.data.presetId,
      version: { id, number },
      pendingLocation: versionLocation(slug, number),
    });
  };

export const writeRoutes = (router: Router<AppState, AppContext>, deps: WriteDeps) => {
  const addVersion = versionAdder(deps);

  for (const [path, format] of FORMAT_ROUTES) {
    router.post(`/api/v1/presets/:slug/${path}`, requireScope('presets:write'), jsonBody(deps.bodyLimitBytes), async (ctx) => {
      isDryRun(ctx.query.dry_run); // a bad value is a 400 before the body is looked at
      const templateFormat = templateFormatOf(ctx.query.template_format);
      if (E.isLeft(templateFormat)) throw badRequest('invalid query parameters', templateFormat.left);
      const draft = toDraft(format, ctx.state.body);
      if (E.isLeft(draft)) throw badRequest(`the body is not a valid ${format} request`, draft.left);
      const template = inferenceTemplate(format, ctx.state.body, draft.right, templateFormat.right);
      if (E.isLeft(template)) throw badRequest('the system prompt is not a template this service can use', template.left);
      await addVersion(ctx, ctx.params.slug!, { format, draft: draft.right, template: template.right, note: noteOf(ctx) });
    });
  }

  router.post('/api/v1/presets/:slug/versions', requireScope('presets:write'), jsonBody(deps.bodyLimitBytes), async (ctx) => {
    isDryRun(ctx.query.dry_run);
    const version = readVersionBody(ctx.state.body);
    if (E.isLeft(version)) throw badRequest('the body is not a valid version', version.left);
    await addVersion(ctx, ctx.params.slug!, { ...version.right, note: noteOf(ctx, version.right.note) });
  });
};

/** A write that happened, as its answer describes it. */
export interface WrittenPreset {
  slug: string;
  /** The stream revision the write left: waited for, and the ETag of the 200 answer. */
  revision: bigint;
  presetId: string;
  /** The version the write added or designated, if it was about one. */
  version?: { id: string; number: number };
  /** Where a 202 answer points the client to poll. */
  pendingLocation: string;
}

/**
 * Read-your-writes, shared by every write route: 200 with the preset as this write left it, from
 * the read model once the projector has passed the write, else 202 pending. Never an error for a
 * write that happened. If later writes already moved the preset on, its document at the write's
 * revision is folded from the events instead (`presetAt`).
 */
export const answerWrite = async (ctx: Ctx, deps: WriteDeps, written: WrittenPreset): Promise<void> => {
  const { slug, revision, presetId, version } = written;
  const workspaceId = ctx.state.workspaceId;
  const record = await deps.waitForPreset(workspaceId, slug, revision, deps.readYourWritesTimeoutMs);
  if (!record) {
    ctx.status = 202;
    ctx.set('Location', written.pendingLocation);
    const pending: PendingWrite = {
      data: { preset_id: presetId, slug, ...(version ? { version: version.number, version_id: version.id } : {}), status: 'pending' },
    };
    ctx.body = pending;
    return;
  }
  const exact = record.revision === revision ? record : ((await deps.presetAt?.(workspaceId, slug, revision)) ?? record);
  ctx.status = 200;
  ctx.set('Location', presetLocation(slug));
  ctx.set('ETag', etagOf(exact.revision));
  sendDataJson(ctx, exact.json);
};
