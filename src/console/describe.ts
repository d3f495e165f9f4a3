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

export const describeEvent = (event: PresetEvent): Described => {
  const d = event.data as Record<string, unknown>;
  const version = (d.version ?? {}) as { number?: unknown; note?: unknown };
  const format = event.metadata.sourceFormat ? `from ${FORMAT_NAMES[event.metadata.sourceFormat]}` : undefined;
  const note = text(d.note) ?? text(version.note);
  switch (event.type) {
    case 'PresetCreated':
      return { what: `created the preset with version ${String(version.number)}`, note, format, version: numberOf(version.number) };
    case 'PresetVersionAdded':
      return { what: `added version ${String(version.number)}`, note, format, version: numberOf(version.number) };
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
    default:
      return { what: `recorded ${event.type}`, note };
  }
};

const PRESET_STREAM = /^preset-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-(.+)$/;

/** The slug in a stream name `preset-<workspace uuid>-<slug>`. */
export const slugOfStream = (stream: string): string | undefined => PRESET_STREAM.exec(stream)?.[1];
