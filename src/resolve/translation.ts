import * as E from 'fp-ts/Either';
import { FORMAT_CODECS } from '../formats';
import { SOURCE_FORMATS, type SourceFormat } from '../presets/events';
import { formatErrors } from '../validation';
import { outputFormat } from './rows/outputFormat';
import { ownPart, outputLimit, same, stop } from './rows/plain';
import { effort, otherReasoning, thinking } from './rows/reasoning';
import { isObject, Source, type Json, type Row, type Step } from './rows/row';
import { parallelToolCalls, toolChoice, tools } from './rows/tools';

export type { Row } from './rows/row';
export { OUTPUT_SCHEMA_NAME } from './rows/outputFormat';

/**
 * A version keeps its config under the field names of the format it was made from. Resolving it
 * for another format translates it with this table, one row per setting: where each format keeps
 * it and how its value changes on the way. A setting the target format has no place for is
 * dropped and listed, with the reason, never silently: after every row has run, anything of the
 * config no row took is listed too. The README renders the table (a test keeps them equal).
 */
export interface Dropped {
  /** Where it was in the version's config: `top_k`, `reasoning.summary`, `tools[2]`. */
  field: string;
  reason: string;
}

export interface Translation {
  config: Readonly<Record<string, unknown>>;
  dropped: readonly Dropped[];
  /** For each field of `config`, and each `field.key` set inside one, where in the version's config it came from. */
  origins: ReadonlyMap<string, string>;
}

/**
 * The table, in the order the translated config gets its fields. Fields of one format only are
 * rows too: they say, for the README, that every other format drops them.
 */
export const TRANSLATION_TABLE: readonly Row[] = [
  same('model'),
  same('models'),
  same('temperature'),
  same('top_p'),
  same('top_k'),
  same('min_p'),
  same('top_a'),
  same('repetition_penalty'),
  same('frequency_penalty'),
  same('presence_penalty'),
  same('seed'),
  same('logit_bias'),
  outputLimit,
  same('max_tool_calls'),
  stop,
  same('stop_server_tools_when'),
  same('logprobs'),
  same('top_logprobs'),
  same('include'),
  same('modalities'),
  same('image_config'),
  outputFormat,
  ownPart('responses', 'text', 'verbosity', 'verbosity'),
  ownPart('messages', 'output_config', 'task_budget', 'task budget'),
  effort,
  thinking,
  otherReasoning,
  tools,
  toolChoice,
  parallelToolCalls,
  same('provider'),
  same('fallbacks'),
  same('route'),
  same('service_tier'),
  same('speed'),
  same('plugins'),
  same('cache_control'),
  same('prompt_cache_options'),
  same('truncation'),
  same('context_management'),
];

/**
 * A version's config, made from a `from` request, as a `to` request says it. Pure. The same
 * format gives the config as it is. Every value placed is one the target format's codec takes
 * for that field; one it does not is dropped with the codec's reason.
 */
export const translateConfig = (from: SourceFormat, to: SourceFormat, config: Readonly<Json>): Translation => {
  if (from === to) return { config, dropped: [], origins: new Map() };
  const out: Json = {};
  const origins = new Map<string, string>();
  const dropped: Dropped[] = [];
  const src = new Source(config as Json);
  const drop = (field: string, reason: string) => {
    dropped.push({ field, reason });
  };
  const put = (path: string, value: unknown, origin: string) => {
    const dot = path.indexOf('.');
    if (dot < 0) {
      if (out[path] !== undefined) return drop(origin, `${to}'s ${path} is set from ${origins.get(path)} already`);
      out[path] = value;
    } else {
      const [field, key] = [path.slice(0, dot), path.slice(dot + 1)];
      const parent = (out[field] ??= {}) as Json;
      if (!isObject(parent)) return drop(origin, `${to}'s ${field} is set from ${origins.get(field)} already`);
      if (parent[key] !== undefined) return drop(origin, `${to}'s ${path} is set from ${origins.get(path)} already`);
      parent[key] = value;
      if (!origins.has(field)) origins.set(field, origin);
    }
    origins.set(path, origin);
  };
  const step: Step = { from, to, src, put, placed: (field) => out[field], drop };
  for (const row of TRANSLATION_TABLE) row.translate(step);
  for (const field of src.untaken()) drop(field, `${to} has no counterpart of it`);

  // Every row places values of the target's shape; the target's codec has the last word on each.
  const codecs = FORMAT_CODECS[to].fieldCodecs;
  for (const [field, value] of Object.entries(out)) {
    const codec = codecs[field];
    if (codec?.is(value)) continue;
    delete out[field];
    const decoded = codec?.decode(value);
    const problem = decoded && E.isLeft(decoded) ? formatErrors(decoded.left)[0]?.message : undefined;
    dropped.push({
      field: origins.get(field) ?? field,
      reason: `${to} does not take this value for ${field}${problem ? `: ${problem}` : ''}`,
    });
  }
  return { config: out, dropped, origins };
};

/** The table as Markdown: the README holds this verbatim, between its translation markers. */
export const renderTranslationTable = (): string => {
  const header = ['| setting | chat_completions | messages | responses | how it translates |', '|---|---|---|---|---|'];
  const lines = TRANSLATION_TABLE.map(
    (row) => `| ${row.setting} | ${SOURCE_FORMATS.map((f) => row.at[f] ?? '—').join(' | ')} | ${row.how} |`,
  );
  return [...header, ...lines].join('\n') + '\n';
};
