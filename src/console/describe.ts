import type { PresetEvent, SourceFormat } from './api/types';

/**
 * What an event says, in a sentence a person reads in the history: pure, so the timeline, the
 * events page and their tests agree.
 */
export interface Described {
  /** What happened, after the actor's name: "added version 3". */
  what: string;
  /** The note given with the change, if any. */
  note?: string;
  /** The request format a version came from, in words. */
  format?: string;
  /** The version the event is about, when it is about one. */
  version?: number;
}

const FORMAT_NAMES: Record<SourceFormat, string> = {
  chat_completions: 'an OpenAI chat-completions body',
  messages: 'an Anthropic messages body',
  responses: 'an OpenAI responses body',
};

const quoted = (value: unknown) => `“${String(value)}”`;
const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);
const numberOf = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);
/** A split's shares in words: "version 3 (95), version 4 (5)". */
const sharesOf = (value: unknown): string =>
  Array.isArray(value)
    ? (value as Array<{ versionNumber?: unknown; weight?: unknown }>)
        .map((s) => `version ${String(s.versionNumber)} (${String(s.weight)})`)
        .join(', ')
    : '?';
/** A label, or the designated version (null). */
const target = (label: unknown) => (label === null || label === undefined ? 'the designated version' : `the label ${quoted(label)}`);

export const describeEvent = (event: PresetEvent): Described => {
  const d = event.data as Record<string, unknown>;
  const version = (d.version ?? {}) as { number?: unknown; note?: unknown; templateFormat?: unknown };
  const templated = version.templateFormat === 'handlebars' ? ', a template' : '';
  const format = event.metadata.sourceFormat ? `from ${FORMAT_NAMES[event.metadata.sourceFormat]}` : undefined;
  const note = text(d.note) ?? text(version.note);
  switch (event.type) {
    case 'PresetCreated':
      return {
        what: `created the preset with version ${String(version.number)}${templated}`,
        note,
        format,
        version: numberOf(version.number),
      };
    case 'PresetVersionAdded':
      return { what: `added version ${String(version.number)}${templated}`, note, format, version: numberOf(version.number) };
    case 'PresetVersionDesignated':
      return {
        what: `designated version ${String(d.versionNumber)} (was version ${String(d.previousVersionNumber)})`,
        note,
        version: numberOf(d.versionNumber),
      };
    case 'PresetDetailsChanged': {
      const parts: string[] = [];
      if ('name' in d) parts.push(`renamed it to ${quoted(d.name)}`);
      if ('description' in d)
        parts.push(d.description === null ? 'removed the description' : `set the description to ${quoted(d.description)}`);
      return { what: parts.join(' and ') || 'changed its details', note };
    }
    case 'PresetStatusChanged':
      return { what: `changed the status from ${String(d.previousStatus)} to ${String(d.status)}`, note };
    case 'PresetLabelMoved':
      return {
        what: Array.isArray(d.previousVersions)
          ? `ended the split of the label ${quoted(d.label)} (${sharesOf(d.previousVersions)}): it names version ${String(d.versionNumber)}`
          : d.previousVersionNumber === null || d.previousVersionNumber === undefined
            ? `put the label ${quoted(d.label)} on version ${String(d.versionNumber)}`
            : `moved the label ${quoted(d.label)} from version ${String(d.previousVersionNumber)} to version ${String(d.versionNumber)}`,
        note,
        version: numberOf(d.versionNumber),
      };
    case 'PresetLabelSplit':
      return {
        what:
          `split the label ${quoted(d.label)} between ${sharesOf(d.versions)}` +
          (Array.isArray(d.previousVersions)
            ? ` (was ${sharesOf(d.previousVersions)})`
            : typeof d.previousVersionNumber === 'number'
              ? ` (was version ${d.previousVersionNumber})`
              : ''),
        note,
      };
    case 'PresetLabelRemoved':
      return { what: `removed the label ${quoted(d.label)} (it named version ${String(d.versionNumber)})`, note };
    case 'PresetLabelProtected':
      return {
        what: d.protected
          ? `protected ${target(d.label)}${Number(d.approvals) > 0 ? `, moves needing ${String(d.approvals)} approval${d.approvals === 1 ? '' : 's'}` : ''}`
          : `lifted the protection of ${target(d.label)}`,
        note,
      };
    case 'LabelMoveProposed':
      return {
        what: `proposed moving ${target(d.label)} to version ${String(d.versionNumber)} (${String(d.approvalsRequired)} approval${d.approvalsRequired === 1 ? '' : 's'} needed)`,
        note,
        version: numberOf(d.versionNumber),
      };
    case 'PresetChangeProposed': {
      const c = (d.change ?? {}) as { kind?: unknown; protected?: unknown; approvals?: unknown; status?: unknown };
      const needed = `${String(d.approvalsRequired)} approval${d.approvalsRequired === 1 ? '' : 's'} needed`;
      const what =
        c.kind === 'remove_label'
          ? `removing ${target(d.label)}`
          : c.kind === 'protect'
            ? c.protected
              ? `protecting ${target(d.label)} with ${String(c.approvals)} approval${c.approvals === 1 ? '' : 's'}`
              : `lifting the protection of ${target(d.label)}`
            : `setting the status to ${String(c.status)}`;
      return { what: `proposed ${what} (${needed})`, note };
    }
    case 'LabelMoveApproved':
      return { what: 'approved a proposal', note };
    case 'LabelMoveRejected':
      return { what: 'rejected a proposal', note };
    case 'LabelMoveWithdrawn':
      return { what: 'withdrew their proposal', note };
    case 'ApiKeyCreated':
      return {
        what: `made an API key${d.name ? ` ${quoted(d.name)}` : ''} for ${String(d.userId)} (${(d.scopes as string[] | undefined)?.join(', ') ?? ''})`,
        note,
      };
    case 'ApiKeyRevoked':
      return { what: 'revoked an API key', note };
    default:
      return { what: `recorded ${event.type}`, note };
  }
};

const PRESET_STREAM = /^preset-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-([A-Za-z0-9].*)$/;

/** The slug in a stream name `preset-<workspace uuid>-<slug>` (none for the workspace's keys stream, `…-~keys`). */
export const slugOfStream = (stream: string): string | undefined => PRESET_STREAM.exec(stream)?.[1];
