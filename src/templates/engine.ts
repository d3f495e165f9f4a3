import Handlebars from 'handlebars';
import { KNOWN_HELPERS, STEP_HELPER, walkTemplate, type NameUse, type TemplateProblem } from './ast';
import { MAX_PRODUCED_CHARS, MAX_STEPS } from './limits';
import { isScanProblem, scanTemplate } from './scan';

/**
 * Handlebars as Google's Dotprompt runs it (its `dotprompt` package: `noEscape`, `knownHelpersOnly`
 * with its helpers `json`, `ifEquals` and `unlessEquals`, and Handlebars' own defaults since 4.6,
 * which refuse what is not an own property of the data: `{{constructor}}` and `{{__proto__}}` are
 * empty), in an environment of its own: nothing registered here reaches another user of
 * Handlebars in the process, and nothing a template can call reads a file, the environment or the
 * network (the `log` helper, Handlebars' one way out, is gone). Every render is bounded: it counts
 * the statements it runs (./ast.ts puts a counter in every block) and the characters its helpers
 * make, and stops past MAX_STEPS or MAX_PRODUCED_CHARS. The only decorator is the service's own
 * counter; a template's own decorators and partials are refused before compiling (./ast.ts).
 */
const hb = Handlebars.create();
hb.unregisterHelper('log');

/** Why a render stopped before its end. */
export class RenderStopped extends Error {
  override readonly name = 'RenderStopped';
  constructor(
    readonly reason: 'template_runaway' | 'template_output_too_large',
    message: string,
  ) {
    super(message);
  }
}

// The budget of the render under way. Rendering is synchronous and no helper renders, so one
// budget at a time is the whole truth; `startRender` sets it before each render.
let steps = 0;
let produced = 0;

export const startRender = () => {
  steps = 0;
  produced = 0;
};

/** Characters a helper or a list written whole made: counted against MAX_PRODUCED_CHARS. */
export const charge = (chars: number) => {
  produced += chars;
  if (produced > MAX_PRODUCED_CHARS) {
    throw new RenderStopped('template_output_too_large', `the template made more than ${MAX_PRODUCED_CHARS} characters while rendering`);
  }
};

// Wraps each program (./ast.ts puts one in every program): counts its statements each time it runs.
hb.registerDecorator(
  STEP_HELPER,
  (program: (context: unknown, options: unknown) => unknown, _props: unknown, _container: unknown, options: { args: [number] }) => {
    const count = options.args[0];
    return (context: unknown, runOptions: unknown) => {
      steps += count;
      if (steps > MAX_STEPS) {
        throw new RenderStopped(
          'template_runaway',
          `rendering ran more than ${MAX_STEPS.toLocaleString('en-US')} template steps (a loop over large values?)`,
        );
      }
      return program(context, runOptions);
    };
  },
);

// Dotprompt's helpers, as its js/src/helpers.ts defines them.
hb.registerHelper('json', (value: unknown, options: Handlebars.HelperOptions) => {
  const text = JSON.stringify(value, null, (options.hash as { indent?: number }).indent || 0);
  if (text !== undefined) charge(text.length);
  return new hb.SafeString(text);
});
hb.registerHelper('ifEquals', function (this: unknown, a: unknown, b: unknown, options: Handlebars.HelperOptions) {
  return a === b ? options.fn(this) : options.inverse(this);
});
hb.registerHelper('unlessEquals', function (this: unknown, a: unknown, b: unknown, options: Handlebars.HelperOptions) {
  return a !== b ? options.fn(this) : options.inverse(this);
});

const COMPILE_OPTIONS: CompileOptions = {
  noEscape: true,
  knownHelpersOnly: true,
  knownHelpers: { json: true, ifEquals: true, unlessEquals: true, log: false },
  // Standalone lines were stripped when the text was parsed; the compiler's own pass must not strip again.
  ignoreStandalone: true,
};
/** Handlebars' defaults, said explicitly: so a denied `{{constructor}}` is refused quietly, not logged. */
const RUNTIME_OPTIONS: Handlebars.RuntimeOptions = { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false };

export type Template = (data: unknown) => string;

export interface CompiledTemplate {
  render: Template;
  /** The top-level names it reads, and how. */
  names: Map<string, NameUse>;
}

/** A template's text compiled, or its problems (each with a line and column where known). */
export const compileTemplate = (text: string, tagsBefore = 0): { compiled: CompiledTemplate; tags: number } | TemplateProblem[] => {
  const scanned = scanTemplate(text, tagsBefore);
  if (isScanProblem(scanned)) return [scanned];
  let ast: hbs.AST.Program;
  try {
    ast = hb.parse(text);
  } catch (error) {
    return [parseProblem(error)];
  }
  const { names, problems } = walkTemplate(ast);
  if (problems.length > 0) return problems;
  let template: HandlebarsTemplateDelegate;
  try {
    template = hb.compile(ast, COMPILE_OPTIONS);
    // Handlebars compiles on the first call: make it now, over no data (no loop runs), so a
    // version's templates are compiled once, here.
    startRender();
    template({}, RUNTIME_OPTIONS);
  } catch (error) {
    return [compileProblem(error)];
  }
  return { compiled: { render: (data) => template(data, RUNTIME_OPTIONS), names }, tags: scanned.tags };
};

const oneLine = (text: string) => text.replace(/\s*\n\s*/g, ' ').slice(0, 300);

/** Handlebars' parse error ("Parse error on line 2: … Expecting 'ID', got 'EOF'", which names its line), on one line. */
const parseProblem = (error: unknown): TemplateProblem => {
  const e = error as { message?: string; lineNumber?: number; column?: number };
  const message = `does not parse as Handlebars: ${oneLine(String(e.message ?? error))}`;
  return e.lineNumber === undefined ? { message } : { message, line: e.lineNumber, column: e.column };
};

const compileProblem = (error: unknown): TemplateProblem => {
  const e = error as { message?: string; lineNumber?: number; column?: number };
  // Handlebars' own messages end with " - line:column".
  const message = oneLine(String(e.message ?? error)).replace(/ - \d+:\d+$/, '');
  const known = message.startsWith('You specified knownHelpersOnly')
    ? `${message.replace(/^You specified knownHelpersOnly, but used the unknown helper /, 'unknown helper ')}: the helpers are ${KNOWN_HELPERS.join(', ')}`
    : `does not compile: ${message}`;
  return e.lineNumber === undefined ? { message: known } : { message: known, line: e.lineNumber, column: e.column };
};
