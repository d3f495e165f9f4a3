import * as t from 'io-ts';
import type { PresetDraft } from '../../formats';
import { SourceFormat, type SourceFormat as SourceFormatName } from '../../presets/events';
import { badRequest } from '../errors';

/**
 * `?dry_run=true` on the three create-or-version routes: the body is validated exactly as for a
 * write and the answer is what the write would store as the version's config and system prompt;
 * nothing is stored. A preview for people who paste a request before saving it as a version. The
`Preset-Note` header is read too, as the write would read it.
 */
export const DryRunAnswer = t.type(
  {
    data: t.type({
      /** The version's `config` as the POST would store it. */
      config: t.UnknownRecord,
      /** The version's `system_prompt` as the POST would store it. */
      system_prompt: t.string,
      /** The request format the body was read as. */
      source_format: SourceFormat,
      /** The version's `note`, from the `Preset-Note` header; null when none. */
      note: t.union([t.string, t.null]),
    }),
  },
  'DryRunAnswer',
);
export type DryRunAnswer = t.TypeOf<typeof DryRunAnswer>;

/** The `dry_run` query parameter: absent or `false` writes, `true` previews; anything else is a 400. */
export const isDryRun = (raw: string | string[] | undefined): boolean => {
  if (raw === undefined || raw === 'false') return false;
  if (raw === 'true') return true;
  throw badRequest('invalid query parameters', [{ path: 'dry_run', message: `must be true or false, got ${JSON.stringify(raw)}` }]);
};

export const dryRunAnswer = (format: SourceFormatName, draft: PresetDraft, note: string | undefined): DryRunAnswer => ({
  data: { config: draft.config, system_prompt: draft.systemPrompt, source_format: format, note: note ?? null },
});
