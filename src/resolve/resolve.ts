import * as E from 'fp-ts/Either';
import type { PresetView, VersionView } from '../../projections/readmodel/readModel';
import { JsonObject, type FormatName } from '../formats';
import type { SourceFormat } from '../presets/events';
import { formatErrors } from '../validation';
import { RESOLVE_REQUEST_CODECS, type Resolution } from './codecs';
import { invalid, missing, refused, type ResolveFailure } from './failure';
import { mergeRequest } from './merge';
import type { PresetSource } from './presetSource';
import { parsePresetReference, PRESET_MARK, type PresetReference, type ReferenceProblem } from './reference';
import { pickSplitVersion, randomSplitVersion, splitKeyOf, type SplitKeySource } from './split';
import { translateConfig, type Translation } from './translation';
import { renderVersion, type VersionMessage } from '../templates/render';
import { renderFailure, variablesOf } from './variables';

/**
 * Resolving an inference request that names a preset into the request to send: check the body as
 * the create endpoints do, read the reference, find the preset and the version it pins, translate
 * the version's config to the body's format and merge it in. The same function answers over HTTP
 * (the read model as its source) and in a gateway's process (the client's copy): one implementation.
 */
type Json = Record<string, unknown>;

/** The body as a request of `format` that may carry `preset`, or why it is not one. */
export const checkBody = (format: FormatName, body: unknown): E.Either<ResolveFailure, Json> => {
  const codec = RESOLVE_REQUEST_CODECS[format];
  // `is` accepts exactly what `decode` does (test/unit/formats/isMatchesDecode.test.ts) at a fraction
  // of the cost: decode only to say what is wrong.
  if (JsonObject.is(body) && codec.is(body)) return E.right(body);
  const message = `the body is not a valid ${format} request`;
  const object = JsonObject.decode(body);
  if (E.isLeft(object)) return E.left(invalid(message, formatErrors(object.left)));
  const decoded = codec.decode(body);
  return E.isLeft(decoded) ? E.left(invalid(message, formatErrors(decoded.left))) : E.right(object.right);
};

/** The body's preset reference, or a 400 saying it has none or what is wrong with it. A responses body may name it by `prompt`. */
export const referenceOf = (body: Json, format: FormatName = 'chat_completions'): E.Either<ResolveFailure, PresetReference> =>
  E.mapLeft((problem: ReferenceProblem) =>
    problem.kind === 'none'
      ? invalid(
          'the body names no preset: set "model" to "@preset/<slug>" or "<model>@preset/<slug>", or add "preset": "<slug>"' +
            (format === 'responses' ? ', or "prompt": {"id": "<slug>"}' : ''),
          [{ path: '$', message: `no ${JSON.stringify(PRESET_MARK)} in model, and no preset field` }],
        )
      : invalid('the preset reference is malformed', problem.problems),
  )(parsePresetReference(format === 'responses' ? body : { model: body.model, preset: body.preset }));

const STATUS_REFUSALS: Partial<Record<PresetView['status'], string>> = {
  disabled: 'set its status to active to use it',
  archived: 'restore it (status active) to use it',
};

/** What the caller of a resolution says beside the body. */
export interface ResolveOptions {
  /** The `Preset-Split-Key` header: the key a split label is resolved by, before the body's own. */
  splitKey?: string;
  /** Draws the version of a split label when the request gives no key (default Math.random). */
  random?: () => number;
  /** Values for a templated version given beside the body (presets/client), as `prompt_variables` in it would be. */
  variables?: Record<string, unknown>;
}

/** How a split label's version was picked: by which key, or at random. */
export interface SplitPick {
  source: SplitKeySource;
}

/** The version the reference pins, from the source; or why there is none to use. */
export const pickVersion = async (
  preset: PresetView,
  reference: PresetReference,
  source: PresetSource,
  pickInSplit: (split: readonly { version: number; weight: number }[], label: string) => number = (split) => split[0]!.version,
): Promise<E.Either<ResolveFailure, VersionView>> => {
  const name = JSON.stringify(preset.slug);
  const byNumber = async (number: number) =>
    preset.designated_version.version === number ? preset.designated_version : await source.version(preset, number);
  const { pin } = reference;
  switch (pin.kind) {
    case 'designated':
      return E.right(preset.designated_version);
    case 'version': {
      const version = await byNumber(pin.number);
      return version ? E.right(version) : E.left(missing(`preset ${name} has no version ${pin.number}`));
    }
    case 'latest': {
      const version = await source.latestVersion(preset);
      return version ? E.right(version) : E.left(missing(`preset ${name} has no versions`));
    }
    case 'label': {
      const labels = preset.labels ?? {};
      const named = Object.hasOwn(labels, pin.label) ? labels[pin.label] : undefined;
      if (named === undefined) return E.left(missing(`preset ${name} has no label ${JSON.stringify(pin.label)}`));
      const number = typeof named === 'number' ? named : pickInSplit(named.split, pin.label);
      const version = await byNumber(number);
      return version
        ? E.right(version)
        : E.left(missing(`label ${JSON.stringify(pin.label)} of preset ${name} names version ${number}, which it does not have`));
    }
  }
};

/** Translations of versions already made, per target format: a version never changes. */
const translations = new WeakMap<VersionView, Partial<Record<FormatName, Translation>>>();

const freeze = <T>(value: T): T => {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) freeze(child);
  }
  return value;
};

/**
 * The version's config translated to `format`. Kept with the version object, and frozen: answers
 * of the in-process client share it, and no caller may change it for the next one.
 */
export const translationOf = (version: VersionView, from: SourceFormat, format: FormatName): Translation => {
  let byFormat = translations.get(version);
  if (!byFormat) translations.set(version, (byFormat = {}));
  return (byFormat[format] ??= freeze(translateConfig(from, format, version.config)));
};

/** Resolves a request of `format` that names a preset, with presets and versions from `source`. */
export const resolveRequest = async (
  format: FormatName,
  body: unknown,
  source: PresetSource,
  options: ResolveOptions = {},
): Promise<E.Either<ResolveFailure, Resolution>> => {
  const checked = checkBody(format, body);
  if (E.isLeft(checked)) return checked;
  const reference = referenceOf(checked.right, format);
  if (E.isLeft(reference)) return reference;
  const { slug, pin } = reference.right;
  const given = variablesOf(format, checked.right, options.variables);
  if (E.isLeft(given)) return given;

  const preset = await source.preset(slug);
  if (!preset) return E.left(missing(`no preset ${JSON.stringify(slug)} in this workspace`));
  const refusal = STATUS_REFUSALS[preset.status];
  if (refusal) return E.left(refused(`preset ${JSON.stringify(slug)} is ${preset.status}: ${refusal}`, `preset_${preset.status}`));

  // A split label picks its version by the request's key (src/resolve/split.ts).
  let splitSource: SplitKeySource | undefined;
  const picked = await pickVersion(preset, reference.right, source, (split, label) => {
    const target = { workspaceId: preset.workspace_id, slug: preset.slug, label, split };
    const key = splitKeyOf(format, checked.right, options.splitKey);
    splitSource = key ? key.source : 'random';
    return key ? pickSplitVersion(target, key.key) : randomSplitVersion(target, options.random);
  });
  if (E.isLeft(picked)) return picked;
  const version = picked.right;
  const from = version.source_format;
  if (!from) {
    return E.left(
      refused(
        `version ${version.version} of preset ${JSON.stringify(slug)} does not record the request format it was made from, so its config cannot be translated ` +
          '(a read model made before formats were recorded: run npm run rebuild)',
        'source_format_unknown',
      ),
    );
  }

  // The version's system prompt and messages, its template filled in with the request's values.
  const rendered = renderVersion(version, given.right.values, given.right.where);
  if (E.isLeft(rendered)) return E.left(renderFailure(rendered.left, given.right.where, version.version, slug));

  // The request as sent, its preset reference and variables gone and its model settled: form 2's
  // model, else its own. (No delete: it would turn the object into a slow dictionary.)
  const request: Json = {};
  const fromModel = reference.right.in === 'model';
  for (const key in checked.right) {
    if (key === 'preset' || key === 'prompt_variables' || (key === 'model' && fromModel) || (key === 'prompt' && format === 'responses'))
      continue;
    request[key] = checked.right[key];
  }
  if (fromModel && reference.right.model !== undefined) request.model = reference.right.model;
  const translation = translationOf(version, from, format);
  const merged = mergeRequest(format, request, translation, rendered.right.system);
  if (rendered.right.messages.length > 0) merged.request = withVersionMessages(format, merged.request, rendered.right.messages);
  if (format === 'messages' && typeof merged.request.model !== 'string') {
    return E.left(
      invalid(`the request names no model, and version ${version.version} of preset ${JSON.stringify(slug)} has none`, [
        { path: '$.model', message: `messages requests need one: name it, as "<model>${PRESET_MARK}${slug}"` },
      ]),
    );
  }
  const label = pin.kind === 'label' ? pin.label : pin.kind === 'latest' ? 'latest' : null;
  const resolution: Resolution = {
    request: merged.request,
    preset: {
      id: preset.id,
      slug: preset.slug,
      version: version.version,
      version_id: version.id,
      label,
      source_format: from,
      // A read model made before templates has versions without the field: "none".
      template_format: version.template_format ?? 'none',
    },
    dropped: [...translation.dropped, ...merged.dropped],
    overridden: merged.overridden,
  };
  if (splitSource) resolution.served = { version: version.version, label: label!, split_key_source: splitSource };
  if (given.right.values !== undefined) resolution.unused_variables = rendered.right.unused;
  return E.right(resolution);
};

const isConversationSystem = (m: unknown) =>
  typeof m === 'object' && m !== null && ((m as Json).role === 'system' || (m as Json).role === 'developer');

/**
 * The version's messages in the request: after the system instruction and before the request's own
 * conversation (chat: after the leading system and developer messages; messages: first; responses:
 * first in `input`, a string input becoming the user message it stands for).
 */
const withVersionMessages = (format: FormatName, request: Json, messages: VersionMessage[]): Json => {
  const copy = (): Array<Record<string, unknown>> => messages.map((m) => ({ role: m.role, content: m.content }));
  if (format === 'responses') {
    const input = request.input;
    const rest = typeof input === 'string' ? [{ role: 'user', content: input }] : Array.isArray(input) ? input : [];
    return { ...request, input: [...copy(), ...rest] };
  }
  const own = Array.isArray(request.messages) ? (request.messages as unknown[]) : [];
  if (format === 'messages') return { ...request, messages: [...copy(), ...own] };
  let lead = 0;
  while (lead < own.length && isConversationSystem(own[lead])) lead++;
  return { ...request, messages: [...own.slice(0, lead), ...copy(), ...own.slice(lead)] };
};
