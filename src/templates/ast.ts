/**
 * One walk over a parsed template (Handlebars' AST), before it is compiled:
 *  - refuses what a version's template may not do: partials and decorators (nothing to load them
 *    from, and the only way a template could call itself), Dotprompt's structural helpers (a
 *    version's messages carry their roles), helpers outside the known set, and the known ones used
 *    with the wrong number of arguments or as the wrong kind of tag;
 *  - collects the top-level names the template reads (`{{language}}`, `{{#each items}}`,
 *    `{{user.name}}`, `{{@root.x}}`, `{{../x}}` back at the top), and how it uses each: what the
 *    variables schema must declare, and what an inferred schema says of them;
 *  - puts a step counter at the start of every program (`{{* $$steps n}}`, a decorator, n the
 *    program's statements): a render counts the statements it runs, so a loop over large values
 *    stops at a bound instead of holding the thread (./engine.ts). A decorator wraps the program
 *    and writes nothing, so the output is Handlebars' own to the byte.
 */
export type Usage = 'output' | 'condition' | 'iterate' | 'object';

export interface NameUse {
  usages: Set<Usage>;
  line: number;
  column: number;
}

export interface TemplateProblem {
  message: string;
  line?: number;
  column?: number;
}

/** The decorator that counts a program's statements; a template may not use the name itself. */
export const STEP_HELPER = '$$steps';
/** Block helpers and their arity: each takes exactly this many arguments. */
const BLOCK_HELPERS: Record<string, number> = { if: 1, unless: 1, each: 1, with: 1, ifEquals: 2, unlessEquals: 2 };
/** Helpers written as `{{name args}}` or `(name args)`. */
const INLINE_HELPERS: Record<string, number> = { lookup: 2, json: 1 };
/** Dotprompt's helpers that mark structure in a .prompt file's single template; a version keeps that structure in its fields. */
const STRUCTURAL = new Set(['role', 'history', 'section', 'media']);
export const KNOWN_HELPERS = [...Object.keys(BLOCK_HELPERS), ...Object.keys(INLINE_HELPERS)];

type Node = hbs.AST.Node;
type Program = hbs.AST.Program;
type Path = hbs.AST.PathExpression;

/** A context a program runs in: the variables object (root), or a value inside it. */
interface Scope {
  root: boolean;
  /** Block parameters (`as |item i|`) visible here. */
  params: ReadonlySet<string>;
}

export interface Walked {
  names: Map<string, NameUse>;
  problems: TemplateProblem[];
}

const at = (node: Node) => ({ line: node.loc?.start.line, column: node.loc?.start.column });
const isPath = (node: Node | undefined): node is Path => node?.type === 'PathExpression';
const scoped = (path: Path) => /^\.|this\b/.test(path.original);

/** `{{* $$steps count}}`: a decorator, so it wraps the program it opens and adds nothing to what the program returns. */
const stepTag = (count: number, loc: hbs.AST.SourceLocation): hbs.AST.Decorator =>
  ({
    type: 'Decorator',
    path: { type: 'PathExpression', data: false, depth: 0, parts: [STEP_HELPER], original: STEP_HELPER, loc },
    params: [{ type: 'NumberLiteral', value: count, original: count, loc } as hbs.AST.NumberLiteral],
    hash: undefined,
    strip: { open: false, close: false },
    loc,
  }) as unknown as hbs.AST.Decorator;

export const walkTemplate = (ast: Program): Walked => {
  const names = new Map<string, NameUse>();
  const problems: TemplateProblem[] = [];
  const fail = (node: Node, message: string) => problems.push({ message, ...at(node) });

  const use = (name: string, usage: Usage, node: Node) => {
    const found = names.get(name);
    if (found) found.usages.add(usage);
    else names.set(name, { usages: new Set([usage]), line: node.loc?.start.line ?? 1, column: node.loc?.start.column ?? 0 });
  };

  /** A path read in `scopes` (innermost last): records a top-level name it names. */
  const path = (p: Path, scopes: Scope[], usage: Usage) => {
    if (p.original === STEP_HELPER || p.parts[0] === STEP_HELPER) fail(p, `${STEP_HELPER} is the service's own: it may not be used`);
    if (p.data) {
      // @root.x is the top-level x; @index, @key, @first, @last are the loop's.
      if (p.parts[0] === 'root' && p.depth === 0 && p.parts.length > 1) use(p.parts[1]!, p.parts.length > 2 ? 'object' : usage, p);
      return;
    }
    if (p.parts.length === 0) return; // this, ., ../
    const current = scopes[scopes.length - 1]!;
    if (p.depth === 0 && !scoped(p) && current.params.has(p.parts[0]!)) return; // a block parameter
    // `../` climbs a context that a block changed (each, with, a section), not an #if.
    const target = scopes[scopes.length - 1 - p.depth];
    if (target?.root) use(p.parts[0]!, p.parts.length > 1 ? 'object' : usage, p);
  };

  const expression = (e: Node, scopes: Scope[], usage: Usage) => {
    if (isPath(e)) path(e, scopes, usage);
    else if (e.type === 'SubExpression') call(e as hbs.AST.SubExpression, scopes, 'inline');
  };

  const hash = (h: hbs.AST.Hash | undefined, scopes: Scope[]) => {
    for (const pair of h?.pairs ?? []) expression(pair.value, scopes, 'output');
  };

  /** A helper call (`{{json x}}`, `(lookup a "b")`), or a plain `{{name}}`. */
  const call = (node: hbs.AST.MustacheStatement | hbs.AST.SubExpression, scopes: Scope[], kind: 'inline' | 'mustache') => {
    const callee = node.path as Node;
    const params = node.params ?? [];
    if (!isPath(callee)) {
      if (params.length > 0 || node.hash) fail(node, 'a literal cannot be called as a helper');
      return;
    }
    const name = callee.parts[0];
    const isCall = params.length > 0 || node.hash !== undefined || kind === 'inline';
    const simple = callee.parts.length === 1 && !callee.data && callee.depth === 0 && !scoped(callee);
    if (
      simple &&
      name !== undefined &&
      (isCall || Object.hasOwn(INLINE_HELPERS, name) || Object.hasOwn(BLOCK_HELPERS, name) || STRUCTURAL.has(name))
    ) {
      if (STRUCTURAL.has(name)) {
        fail(
          node,
          `{{${name}}} is Dotprompt's marker for a .prompt file's structure: a version keeps its system prompt and messages apart`,
        );
      } else if (Object.hasOwn(BLOCK_HELPERS, name)) {
        fail(node, `{{${name}}} is a block helper: write {{#${name} …}}…{{/${name}}}`);
      } else if (!Object.hasOwn(INLINE_HELPERS, name)) {
        fail(node, `${JSON.stringify(name)} is not a helper here: the helpers are ${KNOWN_HELPERS.join(', ')}`);
      } else if (params.length !== INLINE_HELPERS[name]) {
        fail(node, `{{${name}}} takes ${INLINE_HELPERS[name]} argument${INLINE_HELPERS[name] === 1 ? '' : 's'}, not ${params.length}`);
      }
      params.forEach((p, i) => expression(p, scopes, name === 'lookup' && i === 0 ? 'object' : 'output'));
      hash(node.hash, scopes);
      return;
    }
    if (isCall) {
      fail(node, `${JSON.stringify(callee.original)} is not a helper here: the helpers are ${KNOWN_HELPERS.join(', ')}`);
      return;
    }
    path(callee, scopes, 'output');
  };

  const block = (node: hbs.AST.BlockStatement, scopes: Scope[]) => {
    const callee = node.path;
    const params = node.params ?? [];
    const current = scopes[scopes.length - 1]!;
    const name = callee.parts[0];
    const helper = callee.parts.length === 1 && !callee.data && callee.depth === 0 && !scoped(callee) ? name : undefined;
    let inner: Scope = current;
    if (helper !== undefined && Object.hasOwn(BLOCK_HELPERS, helper)) {
      if (params.length !== BLOCK_HELPERS[helper]) {
        fail(node, `{{#${helper}}} takes ${BLOCK_HELPERS[helper]} argument${BLOCK_HELPERS[helper] === 1 ? '' : 's'}, not ${params.length}`);
      }
      const usage: Usage =
        helper === 'each' ? 'iterate' : helper === 'with' ? 'object' : helper.endsWith('Equals') ? 'output' : 'condition';
      for (const p of params) expression(p, scopes, usage);
      hash(node.hash, scopes);
      if (helper === 'each' || helper === 'with') {
        const withThis = helper === 'with' && isPath(params[0]) && params[0].parts.length === 0 && params[0].depth === 0;
        inner = { root: withThis && current.root, params: new Set([...current.params, ...(node.program?.blockParams ?? [])]) };
      }
    } else if (helper !== undefined && (Object.hasOwn(INLINE_HELPERS, helper) || STRUCTURAL.has(helper))) {
      fail(node, `{{#${helper}}} is not a block helper`);
    } else if (params.length > 0 || node.hash) {
      fail(node, `${JSON.stringify(callee.original)} is not a helper here: the helpers are ${KNOWN_HELPERS.join(', ')}`);
    } else {
      // A Mustache-style section: its body runs once per item of a list, once in an object, once when true.
      path(callee, scopes, 'condition');
      inner = { root: false, params: new Set([...current.params, ...(node.program?.blockParams ?? [])]) };
    }
    if (node.program) program(node.program, inner === current ? scopes : [...scopes, inner]);
    if (node.inverse) program(node.inverse, scopes);
  };

  const program = (p: Program, scopes: Scope[]) => {
    let statements = 0;
    for (const s of p.body) {
      switch (s.type) {
        case 'ContentStatement':
          statements++;
          break;
        case 'CommentStatement':
          break;
        case 'MustacheStatement':
          statements++;
          call(s as hbs.AST.MustacheStatement, scopes, 'mustache');
          break;
        case 'BlockStatement':
          statements++;
          block(s as hbs.AST.BlockStatement, scopes);
          break;
        case 'PartialStatement':
        case 'PartialBlockStatement':
          fail(s, 'partials ({{> name}}) are not supported: a version is one self-contained template');
          break;
        case 'Decorator':
        case 'DecoratorBlock':
          fail(s, 'decorators and inline partials ({{* …}}, {{#* …}}) are not supported');
          break;
        default:
          fail(s, `${s.type} is not supported`);
      }
    }
    // The program's own entry counts too, so an empty loop body still counts its iterations. An
    // {{else if}} chain's program holds only the next block (which counts itself), and Handlebars'
    // whitespace pass reads it as the chain's first and last statement: it gets no counter.
    if ((p as { chained?: boolean }).chained) return;
    const loc = p.loc ?? { source: '', start: { line: 1, column: 0 }, end: { line: 1, column: 0 } };
    p.body.unshift(stepTag(statements + 1, loc));
  };

  program(ast, [{ root: true, params: new Set() }]);
  return { names, problems };
};
