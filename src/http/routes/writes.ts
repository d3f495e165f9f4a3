import Router from '@koa/router';
import * as E from 'fp-ts/Either';
import { toDraft, type FormatName } from '../../formats';
import type { PresetCommandHandler } from '../../presets/handler';
import type { PresetVersionAdded, PresetCreated } from '../../presets/events';
import type { PresetRecord, PresetView, ReadModel } from '../../../projections/readmodel/readModel';
import { badRequest } from '../errors';
import { requireScope } from '../middleware/auth';
import { jsonBody } from '../middleware/jsonBody';
import type { AppContext, AppState } from '../types';
import { presetLocation, versionLocation } from './locations';

/** The three ways to create or version a preset: one route per request format. */
export const FORMAT_ROUTES: ReadonlyArray<[string, FormatName]> = [
  ['chat/completions', 'chat_completions'],
  ['messages', 'messages'],
  ['responses', 'responses'],
];

export interface WriteDeps {
  handle: PresetCommandHandler;
  waitForPreset: (workspaceId: string, slug: string, revision: bigint, timeoutMs: number) => Promise<PresetRecord | null>;
  readModel: ReadModel;
  bodyLimitBytes: number;
  readYourWritesTimeoutMs: number;
}

export const writeRoutes = (router: Router<AppState, AppContext>, deps: WriteDeps) => {
  for (const [path, format] of FORMAT_ROUTES) {
    router.post(`/api/v1/presets/:slug/${path}`, requireScope('presets:write'), jsonBody(deps.bodyLimitBytes), async (ctx) => {
      const slug = ctx.params.slug!;
      const { caller, requestId } = ctx.state;
      const draft = toDraft(format, ctx.state.body);
      if (E.isLeft(draft)) throw badRequest(`the body is not a valid ${format} request`, draft.left);
      const outcome = await deps.handle(
        { type: 'AddPresetVersion', workspaceId: caller.workspaceId, slug, actorUserId: caller.userId, config: draft.right.config, systemPrompt: draft.right.systemPrompt },
        { requestId, sourceFormat: format },
      );
      const event = outcome.events[0] as PresetCreated | PresetVersionAdded;
      const version = event.data.version;
      const record = await deps.waitForPreset(caller.workspaceId, slug, outcome.revision, deps.readYourWritesTimeoutMs);
      if (!record) {
        // The event is stored; only the read model is behind. Never an error for a write that happened.
        ctx.status = 202;
        ctx.set('Location', versionLocation(slug, version.number));
        ctx.body = { data: { preset_id: event.data.presetId, slug, version: version.number, version_id: version.id, status: 'pending' } };
        return;
      }
      ctx.status = 200;
      ctx.set('Location', presetLocation(slug));
      ctx.body = { data: await asOfWrite(deps.readModel, record, outcome.revision, version.number) };
    });
  }
};

/**
 * The answer describes the preset as this write left it: if later writes already moved it on,
 * the version this request added is shown as the designated one, as it was at that revision.
 */
const asOfWrite = async (readModel: ReadModel, record: PresetRecord, revision: bigint, number: number): Promise<PresetView> => {
  if (record.revision === revision) return record.view;
  const version = await readModel.getVersion(record.view.id, number);
  if (!version) return record.view;
  return { ...record.view, updated_at: version.created_at, designated_version_id: version.id, designated_version: version };
};
