import * as E from 'fp-ts/Either';
import { LRUCache } from 'lru-cache';
import type { ValidateFunction } from 'ajv/dist/2020';
import type { ValidationProblem } from '../validation';
import type { NameUse, TemplateProblem, Usage } from './ast';
import { compileTemplate, RenderStopped, startRender, type Template } from './engine';
import { COMPILED_VERSIONS_KEPT, MAX_MESSAGES, MAX_OUTPUT_BYTES } from './limits';
import { compileVariables } from './variables';
import { copyValues, markLists, valueProblems } from './values';

/**
 * Templated versions (docs/templates.md), as pure functions of their data:
 *  - `checkTemplate`: what a write is checked by before its version is stored: the templates parse
 *    within the bounds, the variables schema is one ajv can use within its bounds (or is inferred
 *    from the template), and every top-level name a template reads is declared;
 *  - `renderVersion(version, variables)`: `{ system, messages, unused }` or why not: the values
 *    are checked against the schema (defaults filled in), then the templates run, bounded. A
 *    version's templates and schema are compiled once and kept by its id (versions never change).
 * The HTTP resolve, `presets/client`, and what comes next (Dotprompt files, MCP prompts) all render
 * through `renderVersion`, so they answer alike.
 */
export type TemplateFormat = 'none' | 'handlebars';

export interface VersionMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** What rendering reads of a version (the read model's version has these; older documents may lack the template fields: "none"). */
export interface TemplateVersion {
  id: string;
  system_prompt: string;
  template_format?: TemplateFormat;
  variables?: Record<string, unknown> | null;
  messages?: readonly VersionMessage[];
}

export interface Rendered {
  system: string;
  messages: VersionMessage[];
  /** Names given that the version does not declare (all of them, for a "none" version), in the order given. */
  unused: string[];
}

export type RenderFailureReason =
  'variables_invalid' | 'template_runaway' | 'template_output_too_large' | 'template_failed' | 'template_invalid';

export interface RenderFailure {
  reason: RenderFailureReason;
  message: string;
  problems: ValidationProblem[];
}

/** Where a version's parts are, in the body that makes it: problems name these. */
export interface TemplatePaths {
  systemPrompt: string;
  /** The messages list (`$.messages`): a message's content is `${messages}[i].content`. */
  messages: string;
  variables: string;
}

const placed = (path: string, p: TemplateProblem): ValidationProblem => ({
  path,
  message: p.line === undefined ? p.message : `${p.message} (line ${p.line}, column ${p.column ?? 0})`,
});

interface CompiledTemplates {
  system: Template;
  messages: Array<{ role: VersionMessage['role']; render: Template }>;
  /** Each top-level name read, how, and the path of the template that first reads it. */
  names: Map<string, NameUse & { path: string }>;
}

const compileTemplates = (
  systemPrompt: string,
  messages: readonly VersionMessage[],
  paths: TemplatePaths,
): CompiledTemplates | ValidationProblem[] => {
  const problems: ValidationProblem[] = [];
  const names = new Map<string, NameUse & { path: string }>();
  let tags = 0;
  const compile = (text: string, path: string): Template | undefined => {
    const result = compileTemplate(text, tags);
    if (Array.isArray(result)) {
      problems.push(...result.map((p) => placed(path, p)));
      return undefined;
    }
    tags = result.tags;
    for (const [name, use] of result.compiled.names) {
      const seen = names.get(name);
      if (seen) for (const u of use.usages) seen.usages.add(u);
      else names.set(name, { ...use, usages: new Set(use.usages), path });
    }
    return result.compiled.render;
  };
  const system = compile(systemPrompt, paths.systemPrompt);
  const compiled = messages.map((m, i) => ({ role: m.role, render: compile(m.content, `${paths.messages}[${i}].content`) }));
  if (problems.length > 0 || !system) return problems;
  return { system, messages: compiled as CompiledTemplates['messages'], names };
};

/** A schema for the names a template reads, when the write gives none (docs/templates.md, "Inferred variables"). */
export const inferVariables = (names: ReadonlyMap<string, { usages: ReadonlySet<Usage> }>): Record<string, unknown> | null => {
  if (names.size === 0) return null;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [name, { usages }] of names) {
    properties[name] = usages.has('iterate')
      ? { type: 'array' }
      : usages.has('object')
        ? { type: 'object' }
        : usages.has('output')
          ? { type: 'string' }
          : {};
    if (!usages.has('condition')) required.push(name);
  }
  return required.length > 0 ? { type: 'object', properties, required } : { type: 'object', properties };
};

export interface CheckedTemplate {
  templateFormat: TemplateFormat;
  variables: Record<string, unknown> | null;
  messages: VersionMessage[];
}

export interface TemplateInput {
  templateFormat: TemplateFormat;
  systemPrompt: string;
  messages: VersionMessage[];
  /** The schema given; undefined: infer it from the templates. */
  variables: Record<string, unknown> | null | undefined;
}

/** A version's template fields as a write gives them, checked; or every problem, at its path. */
export const checkTemplate = (input: TemplateInput, paths: TemplatePaths): E.Either<ValidationProblem[], CheckedTemplate> => {
  const { templateFormat, systemPrompt, messages } = input;
  if (messages.length > MAX_MESSAGES) return E.left([{ path: paths.messages, message: `has more than ${MAX_MESSAGES} messages` }]);
  if (templateFormat === 'none') {
    if (input.variables !== undefined && input.variables !== null) {
      return E.left([
        {
          path: paths.variables,
          message: 'must be null or left out when template_format is "none": its text is sent as it is, {{…}} included',
        },
      ]);
    }
    return E.right({ templateFormat, variables: null, messages });
  }
  const templates = compileTemplates(systemPrompt, messages, paths);
  if (Array.isArray(templates)) return E.left(templates);
  const variables = input.variables === undefined ? inferVariables(templates.names) : input.variables;
  let declared: ReadonlySet<string> = new Set();
  if (variables !== null) {
    const compiled = compileVariables(variables, input.variables === undefined ? `${paths.variables} (inferred)` : paths.variables);
    if (Array.isArray(compiled)) return E.left(compiled);
    declared = new Set(compiled.declared);
  }
  const undeclared: ValidationProblem[] = [];
  for (const [name, use] of templates.names) {
    if (!declared.has(name)) {
      undeclared.push({
        path: use.path,
        message:
          `reads ${JSON.stringify(name)} (line ${use.line}, column ${use.column}), which the variables schema does not declare` +
          (variables === null ? ': the version declares no variables' : ' in its properties'),
      });
    }
  }
  return undeclared.length > 0 ? E.left(undeclared) : E.right({ templateFormat, variables, messages });
};

// Rendering.

interface CompiledVersion {
  templates: CompiledTemplates;
  validate: ValidateFunction | null;
  declared: ReadonlySet<string>;
}
type Compiled = CompiledVersion | { problems: ValidationProblem[] };

const STORED_PATHS: TemplatePaths = { systemPrompt: 'system_prompt', messages: 'messages', variables: 'variables' };
const compiledVersions = new LRUCache<string, Compiled>({ max: COMPILED_VERSIONS_KEPT });
let compilations = 0;
/** How many versions this process has compiled (a test holds resolves to one compilation a version). */
export const versionCompilations = () => compilations;

const compileVersion = (version: TemplateVersion): Compiled => {
  let compiled = compiledVersions.get(version.id);
  if (compiled) return compiled;
  compilations++;
  const templates = compileTemplates(version.system_prompt, version.messages ?? [], STORED_PATHS);
  if (Array.isArray(templates)) compiled = { problems: templates };
  else if (version.variables === null || version.variables === undefined) compiled = { templates, validate: null, declared: new Set() };
  else {
    const variables = compileVariables(version.variables, 'variables');
    compiled = Array.isArray(variables)
      ? { problems: variables }
      : { templates, validate: variables.validate, declared: new Set(variables.declared) };
  }
  compiledVersions.set(version.id, compiled);
  return compiled;
};

const failure = (reason: RenderFailureReason, message: string, problems: ValidationProblem[] = []): E.Either<RenderFailure, Rendered> =>
  E.left({ reason, message, problems });

const keysOf = (variables: unknown): string[] => (typeof variables === 'object' && variables !== null ? Object.keys(variables) : []);

const NONE_MESSAGES: readonly VersionMessage[] = Object.freeze([]);

/**
 * The version's system prompt and messages for these values. `variables` undefined: none given;
 * `where` is where they are in the request (`$.prompt_variables`), for the paths of the problems.
 */
export const renderVersion = (version: TemplateVersion, variables: unknown, where: string): E.Either<RenderFailure, Rendered> => {
  if (version.template_format !== 'handlebars') {
    return E.right({
      system: version.system_prompt,
      messages: (version.messages ?? NONE_MESSAGES) as VersionMessage[],
      unused: keysOf(variables),
    });
  }
  const compiled = compileVersion(version);
  if ('problems' in compiled) {
    return failure('template_invalid', "the version's template cannot be rendered", compiled.problems);
  }
  const copied = copyValues(variables === undefined ? {} : variables, where);
  if (Array.isArray(copied)) return failure('variables_invalid', 'the variables are not valid', copied);
  const values = copied.copy;
  if (compiled.validate && !compiled.validate(values)) {
    return failure(
      'variables_invalid',
      "the variables do not fit the version's schema",
      valueProblems(compiled.validate.errors ?? [], values, where),
    );
  }
  const unused: string[] = [];
  for (const name of keysOf(variables)) if (!compiled.declared.has(name)) unused.push(name);
  markLists(values);
  const { templates } = compiled;
  let system: string;
  const messages: VersionMessage[] = new Array<VersionMessage>(templates.messages.length);
  startRender();
  try {
    system = templates.system(values);
    for (let i = 0; i < templates.messages.length; i++) {
      const m = templates.messages[i]!;
      messages[i] = { role: m.role, content: m.render(values) };
    }
  } catch (error) {
    if (error instanceof RenderStopped) return failure(error.reason, error.message);
    if (error instanceof RangeError && /string length/i.test(error.message)) {
      return failure('template_output_too_large', `the rendered prompt is larger than ${MAX_OUTPUT_BYTES} bytes`);
    }
    return failure(
      'template_failed',
      `the template failed while rendering: ${String((error as Error).message ?? error)
        .split('\n')[0]!
        .slice(0, 200)}`,
    );
  }
  let chars = system.length;
  for (const m of messages) chars += m.content.length;
  if (chars > MAX_OUTPUT_BYTES / 3) {
    let bytes = Buffer.byteLength(system);
    for (const m of messages) bytes += Buffer.byteLength(m.content);
    if (bytes > MAX_OUTPUT_BYTES)
      return failure('template_output_too_large', `the rendered prompt is larger than ${MAX_OUTPUT_BYTES} bytes`);
  }
  return E.right({ system, messages, unused });
};
