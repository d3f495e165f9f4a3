import * as t from 'io-ts';
import type { PresetDraft } from '../../formats';
import { SourceFormat, TemplateFormat, VersionMessage, type SourceFormat as SourceFormatName } from '../../presets/events';
import type { CheckedTemplate } from '../../templates/render';
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
      /** How its text is read: "none" (as it is) or "handlebars" (a template). */
      template_format: TemplateFormat,
      /** The variables schema it would keep, given or inferred from the template; null when it takes none. */
      variables: t.union([t.UnknownRecord, t.null]),
      /** The messages it would keep after its system prompt. */
      messages: t.array(VersionMessage),
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

export const dryRunAnswer = (
  format: SourceFormatName,
  draft: PresetDraft,
  template: CheckedTemplate,
  note: string | undefined,
): DryRunAnswer => ({
  data: {
    config: draft.config,
    system_prompt: draft.systemPrompt,
    template_format: template.templateFormat,
    variables: template.variables,
    messages: template.messages,
    source_format: format,
    note: note ?? null,
  },
});
