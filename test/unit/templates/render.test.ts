import * as E from 'fp-ts/Either';
import { checkTemplate, renderVersion, versionCompilations, type TemplateVersion } from '#src/templates/render';
import { MAX_OUTPUT_BYTES, MAX_STEPS } from '#src/templates/limits';

/**
 * Rendering a templated version (src/templates/render.ts), as a pure function: the Handlebars
 * constructs the issue names, the values checked against the version's schema (paths as the
 * request sent them), the unused names, and the bounds that keep a render from holding a thread.
 */
let n = 0;
const templated = (
  system: string,
  variables: Record<string, unknown> | null,
  messages: TemplateVersion['messages'] = [],
): TemplateVersion => ({
  id: `version-${++n}`,
  system_prompt: system,
  template_format: 'handlebars',
  variables,
  messages,
});
const WHERE = '$.prompt_variables';
const rendered = (version: TemplateVersion, values: unknown) => {
  const result = renderVersion(version, values, WHERE);
  if (E.isLeft(result)) throw new Error(`expected a render, got ${JSON.stringify(result.left)}`);
  return result.right;
};
const refused = (version: TemplateVersion, values: unknown) => {
  const result = renderVersion(version, values, WHERE);
  if (E.isRight(result)) throw new Error(`expected a refusal, got ${JSON.stringify(result.right)}`);
  return result.left;
};
const open = (...names: string[]) => ({ type: 'object', properties: Object.fromEntries(names.map((name) => [name, {}])) });

describe('the Handlebars a version may use', () => {
  it('fills in names, #if/#else, #unless, #each with @index, #with, and Mustache-style sections, without escaping HTML', () => {
    const version = templated(
      '{{company}}: {{#if formal}}Dear customer{{else}}Hi{{/if}}.{{#unless short}} Take your time.{{/unless}}' +
        ' Topics:{{#each topics}} {{@index}}={{this}}{{/each}}. {{#with user}}User {{name}} ({{../company}}).{{/with}}' +
        ' {{#tags}}[{{.}}]{{/tags}}{{^tags}}no tags{{/tags}} {{#vip}}VIP {{company}}{{/vip}} <b>&{{raw}}</b>',
      open('company', 'formal', 'short', 'topics', 'user', 'tags', 'vip', 'raw'),
    );
    expect(
      rendered(version, {
        company: 'Acme & Co',
        formal: false,
        short: false,
        topics: ['billing', 'refunds'],
        user: { name: 'Ann' },
        tags: ['a', 'b'],
        vip: true,
        raw: '<script>"x"</script>',
      }).system,
    ).toBe(
      'Acme & Co: Hi. Take your time. Topics: 0=billing 1=refunds. User Ann (Acme & Co). [a][b] VIP Acme & Co <b>&<script>"x"</script></b>',
    );
    expect(rendered(version, { company: 'A', formal: true, short: true, topics: [], tags: [] }).system).toBe(
      'A: Dear customer. Topics:.  no tags  <b>&</b>',
    );
  });

  it('has Dotprompt’s helpers json, ifEquals and unlessEquals, and lookup', () => {
    const version = templated(
      '{{json order}} {{json order indent=2}} {{#ifEquals tier "gold"}}gold{{else}}other{{/ifEquals}} {{#unlessEquals tier "gold"}}!{{/unlessEquals}} {{lookup order "id"}}',
      open('order', 'tier'),
    );
    expect(rendered(version, { order: { id: 7, items: [1] }, tier: 'gold' }).system).toBe(
      '{"id":7,"items":[1]} {\n  "id": 7,\n  "items": [\n    1\n  ]\n} gold  7',
    );
  });

  it('renders the version’s messages too, each with its role', () => {
    const version = templated('Support for {{company}}.', open('company', 'question'), [
      { role: 'user', content: 'Example: {{company}} billing' },
      { role: 'assistant', content: 'Sure.' },
      { role: 'user', content: '{{question}}' },
    ]);
    expect(rendered(version, { company: 'Acme', question: 'Why?' })).toEqual({
      system: 'Support for Acme.',
      messages: [
        { role: 'user', content: 'Example: Acme billing' },
        { role: 'assistant', content: 'Sure.' },
        { role: 'user', content: 'Why?' },
      ],
      unused: [],
    });
  });

  it('leaves a "none" version’s text as it is, {{…}} and all, and lists every name given as unused', () => {
    const none: TemplateVersion = {
      id: 'none-1',
      system_prompt: 'Literal {{x}} and {{#if y}}z{{/if}}',
      template_format: 'none',
      variables: null,
    };
    expect(rendered(none, { x: 'filled', y: true })).toEqual({
      system: 'Literal {{x}} and {{#if y}}z{{/if}}',
      messages: [],
      unused: ['x', 'y'],
    });
    // A version of a read model made before templates (no template_format) is "none" too.
    expect(rendered({ id: 'old-1', system_prompt: '{{x}}' }, undefined)).toEqual({ system: '{{x}}', messages: [], unused: [] });
  });
});

describe('the values, checked against the version’s schema', () => {
  const schema = {
    type: 'object',
    properties: {
      language: { type: 'string', enum: ['en', 'fr'], description: 'The reply’s language' },
      company: { type: 'string' },
      count: { type: 'integer', default: 3 },
      tone: { type: 'string', default: 'warm' },
    },
    required: ['language', 'company'],
  };
  const version = templated('{{company}} in {{language}}, {{count}} tips, {{tone}}.', schema);

  it('fills in defaults, and lists names the schema does not declare (it allows them) as unused, in the order given', () => {
    expect(rendered(version, { zeta: 1, language: 'fr', company: 'Acme', alpha: 2, tone: 'dry' })).toEqual({
      system: 'Acme in fr, 3 tips, dry.',
      messages: [],
      unused: ['zeta', 'alpha'],
    });
  });

  it('answers every problem at its path under where the values were: missing, wrong type, outside the enum', () => {
    expect(refused(version, { count: 'three', language: 'de' })).toEqual({
      reason: 'variables_invalid',
      message: expect.any(String),
      problems: expect.arrayContaining([
        { path: '$.prompt_variables.company', message: 'is required' },
        { path: '$.prompt_variables.count', message: 'must be integer (got string "three")' },
        { path: '$.prompt_variables.language', message: 'must be one of "en", "fr" (got string "de")' },
      ]),
    });
    expect(refused(version, undefined).problems).toEqual([
      { path: '$.prompt_variables.language', message: 'is required' },
      { path: '$.prompt_variables.company', message: 'is required' },
    ]);
  });

  it('refuses a name the schema forbids, and says where inside nested values', () => {
    const closed = templated('{{#each people}}{{name}}{{/each}}', {
      type: 'object',
      properties: {
        people: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false } },
      },
      additionalProperties: false,
    });
    expect(refused(closed, { people: [{ name: 'a' }, { name: 2, age: 3 }], extra: true }).problems).toEqual(
      expect.arrayContaining([
        { path: '$.prompt_variables.extra', message: 'is not a variable of this version' },
        { path: '$.prompt_variables.people[1].age', message: 'is not allowed here' },
        { path: '$.prompt_variables.people[1].name', message: 'must be string (got number 2)' },
      ]),
    );
  });

  it('never changes the caller’s object (defaults go into the service’s own copy)', () => {
    const given = { language: 'en', company: 'Acme' };
    rendered(version, given);
    expect(given).toEqual({ language: 'en', company: 'Acme' });
  });

  it('checks own properties only: a variable called constructor is required like any other', () => {
    const own = templated('{{constructor}}', {
      type: 'object',
      properties: { constructor: { type: 'string' } },
      required: ['constructor'],
    });
    expect(refused(own, {}).problems).toEqual([{ path: '$.prompt_variables.constructor', message: 'is required' }]);
    expect(rendered(own, { constructor: 'built' }).system).toBe('built');
  });

  it('refuses values that are not JSON (a gateway’s own objects): functions, dates, non-finite numbers', () => {
    const any = templated('{{a}}', open('a'));
    expect(refused(any, { a: () => 1 }).problems[0]).toMatchObject({ path: '$.prompt_variables.a' });
    expect(refused(any, { a: new Date(0) }).problems[0]).toMatchObject({ path: '$.prompt_variables.a' });
    expect(refused(any, { a: Infinity }).problems).toEqual([{ path: '$.prompt_variables.a', message: 'must be a finite number' }]);
    expect(refused(any, 'text').problems).toEqual([
      { path: '$.prompt_variables', message: 'must be an object of named values (got string "text")' },
    ]);
  });
});

describe('hostile templates and values', () => {
  it('reach nothing outside the values: no constructor, prototype or helper of JavaScript renders anything', () => {
    const version = templated(
      '[{{constructor}}][{{__proto__}}][{{#with this.constructor}}{{name}}{{/with}}][{{toString}}][{{lookup this "constructor"}}]' +
        '[{{#with __proto__}}{{constructor}}{{/with}}][{{#each this.__proto__}}{{@key}}{{/each}}][{{this.constructor.name}}][{{@root.constructor}}]',
      { type: 'object', properties: { __proto__: {} } },
    );
    expect(rendered(version, {}).system).toBe('[][][][][][][][][]');
  });

  it('keep a __proto__ key of the values an own value, and leave Object.prototype alone', () => {
    const version = templated('{{#with __proto__}}{{polluted}}{{/with}}', {
      type: 'object',
      properties: { __proto__: { type: 'object' } },
    });
    const values = JSON.parse('{"__proto__": {"polluted": "yes"}}') as Record<string, unknown>;
    expect(rendered(version, values).system).toBe('yes');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('stop a loop that runs away (nested #each over large lists) with a 400-class refusal, not a hung thread', () => {
    const version = templated(
      '{{#each a}}{{#each ../a}}{{#each ../../a}}{{#each ../../../a}}x{{/each}}{{/each}}{{/each}}{{/each}}',
      open('a'),
    );
    const a = Array.from({ length: 200 }, (_, i) => i);
    expect(refused(version, { a })).toEqual({
      reason: 'template_runaway',
      message: `rendering ran more than ${MAX_STEPS.toLocaleString('en-US')} template steps (a loop over large values?)`,
      problems: [],
    });
    // An empty loop body still counts its iterations.
    const empty = templated('{{#each a}}{{#each ../a}}{{#each ../../a}}{{/each}}{{/each}}{{/each}}', open('a'));
    expect(refused(empty, { a }).reason).toBe('template_runaway');
  });

  it('refuse an output over 1 MiB, and a list or json written whole over and over', () => {
    const big = templated('{{#each items}}{{../text}}{{/each}}', open('items', 'text'));
    expect(refused(big, { items: Array.from({ length: 40 }, () => 0), text: 'x'.repeat(30_000) })).toMatchObject({
      reason: 'template_output_too_large',
    });
    const multiByte = templated('{{text}}', open('text'));
    expect(rendered(multiByte, { text: 'é'.repeat(MAX_OUTPUT_BYTES / 2) }).system).toHaveLength(MAX_OUTPUT_BYTES / 2);
    expect(refused(multiByte, { text: 'é'.repeat(MAX_OUTPUT_BYTES / 2 + 1) }).reason).toBe('template_output_too_large');
    const json = templated('{{#each items}}{{json ../data}}{{/each}}', open('items', 'data'));
    expect(refused(json, { items: Array.from({ length: 2000 }, () => 0), data: Array.from({ length: 5000 }, () => 12345) }).reason).toBe(
      'template_output_too_large',
    );
  });

  it('write a list written whole (JavaScript joins it with commas) once per render however often the template names it', () => {
    const list = templated('{{#each items}}{{#if @first}}{{../data}}{{/if}}{{/each}}|{{data}}', open('items', 'data'));
    expect(rendered(list, { items: [1, 2, 3], data: [1, [2, 3], 'x'] }).system).toBe('1,2,3,x|1,2,3,x');
  });
});

describe('compiled once per version', () => {
  it('compiles a version’s templates and schema on its first render, and never again for the same version', () => {
    const version = templated('Hi {{name}}', { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] });
    const before = versionCompilations();
    for (let i = 0; i < 50; i++) rendered(version, { name: `n${i}` });
    expect(versionCompilations() - before).toBe(1);
    // The same version read again (another object, the same id) is not compiled again.
    rendered({ ...version }, { name: 'again' });
    expect(versionCompilations() - before).toBe(1);
  });

  it('answers a stored template it cannot compile as the version’s fault (template_invalid), with where', () => {
    const broken = templated('{{#if}}', null);
    expect(refused(broken, {})).toMatchObject({ reason: 'template_invalid', problems: [{ path: 'system_prompt' }] });
  });
});

describe('checkTemplate: what a write is checked by', () => {
  const paths = { systemPrompt: '$.system_prompt', messages: '$.messages', variables: '$.variables' };
  const check = (
    systemPrompt: string,
    variables?: Record<string, unknown> | null,
    messages: Array<{ role: 'user' | 'assistant'; content: string }> = [],
  ) => checkTemplate({ templateFormat: 'handlebars', systemPrompt, messages, variables }, paths);
  const problems = (result: ReturnType<typeof check>) => (E.isLeft(result) ? result.left : []);

  it('infers a schema when none is given: each name read a required string, lists and objects by their use, conditions optional', () => {
    expect(check('{{name}} {{#each items}}{{title}}{{/each}} {{user.email}} {{#if vip}}!{{/if}} {{#with org}}{{id}}{{/with}}')).toEqual(
      E.right({
        templateFormat: 'handlebars',
        variables: {
          type: 'object',
          properties: { name: { type: 'string' }, items: { type: 'array' }, user: { type: 'object' }, vip: {}, org: { type: 'object' } },
          required: ['name', 'items', 'user', 'org'],
        },
        messages: [],
      }),
    );
    expect(check('No names here.')).toEqual(E.right({ templateFormat: 'handlebars', variables: null, messages: [] }));
  });

  it('keeps a given schema as sent, key order included', () => {
    const variables = {
      required: ['b'],
      properties: { b: { type: 'string' }, a: { description: 'first', type: 'string' } },
      type: 'object',
    };
    const result = check('{{a}}{{b}}', variables);
    expect(E.isRight(result) && JSON.stringify(result.right.variables)).toBe(JSON.stringify(variables));
  });

  it('refuses a name a template reads that the schema does not declare, naming the template, line and column', () => {
    expect(problems(check('Hello\n  {{name}}', { type: 'object', properties: {} }, [{ role: 'user', content: '{{other}}' }]))).toEqual([
      {
        path: '$.system_prompt',
        message: 'reads "name" (line 2, column 4), which the variables schema does not declare in its properties',
      },
      {
        path: '$.messages[0].content',
        message: 'reads "other" (line 1, column 2), which the variables schema does not declare in its properties',
      },
    ]);
    expect(problems(check('{{name}}', null))[0]!.message).toMatch(/declares no variables/);
    // Names inside an #each are the item's, and a block parameter is no variable; ../ climbs back to the top.
    expect(problems(check('{{#each items as |it|}}{{it.x}}{{title}}{{../top}}{{/each}}', open('items')))).toEqual([
      { path: '$.system_prompt', message: expect.stringMatching(/^reads "top" \(line 1, column 42\)/) },
    ]);
  });

  it('refuses a template that does not parse, with Handlebars’ line', () => {
    expect(problems(check('ok\n{{#if x}}unclosed', open('x')))).toEqual([
      {
        path: '$.system_prompt',
        message: expect.stringMatching(/^does not parse as Handlebars: Parse error on line 2: .*Expecting .*, got 'EOF'$/),
      },
    ]);
  });

  it('refuses partials, decorators, Dotprompt’s structural markers, unknown helpers and wrong arities', () => {
    const cases: Array<[string, RegExp]> = [
      ['{{> header}}', /partials/],
      ['{{#> layout}}x{{/layout}}', /partials/],
      ['{{#*inline "p"}}x{{/inline}}', /decorators/],
      ['{{role "user"}}', /Dotprompt's marker/],
      ['{{media url="x"}}', /Dotprompt's marker/],
      ['{{log "hi"}}', /not a helper here/],
      ['{{#each}}x{{/each}}', /takes 1 argument, not 0/],
      ['{{#if a b}}x{{/if}}', /takes 1 argument, not 2/],
      ['{{json}}', /takes 1 argument/],
      ['{{if a}}', /block helper/],
      ['{{$$steps 1}}', /not a helper here/],
      ['{{$$steps}}', /service's own/],
      ['{{this.constructor.constructor "return process"}}', /not a helper here/],
    ];
    for (const [template, message] of cases) {
      expect({ template, problems: problems(check(template, open('a', 'b', 'header', 'layout', 'url'))) }).toEqual({
        template,
        problems: expect.arrayContaining([expect.objectContaining({ path: '$.system_prompt', message: expect.stringMatching(message) })]),
      });
    }
  });

  it('refuses the classic Handlebars remote-code payload before it runs', () => {
    const payload = `{{#with "s" as |string|}}
  {{#with "e"}}
    {{#with split as |conslist|}}
      {{this.pop}}
      {{this.push (lookup string.sub "constructor")}}
      {{this.pop}}
      {{#with string.split as |codelist|}}
        {{this.pop}}
        {{this.push "return process.env;"}}
        {{this.pop}}
        {{#each conslist}}
          {{#with (string.sub.apply 0 codelist)}}{{this}}{{/with}}
        {{/each}}
      {{/with}}
    {{/with}}
  {{/with}}
{{/with}}`;
    expect(problems(check(payload, open('split'))).length).toBeGreaterThan(0);
  });

  it('refuses variables on a "none" version, and more than 100 messages', () => {
    expect(checkTemplate({ templateFormat: 'none', systemPrompt: '{{x}}', messages: [], variables: open('x') }, paths)).toEqual(
      E.left([{ path: '$.variables', message: expect.stringMatching(/template_format is "none"/) }]),
    );
    expect(checkTemplate({ templateFormat: 'none', systemPrompt: '{{x}}', messages: [], variables: null }, paths)).toEqual(
      E.right({ templateFormat: 'none', variables: null, messages: [] }),
    );
    const many = Array.from({ length: 101 }, () => ({ role: 'user' as const, content: 'x' }));
    expect(problems(check('x', null, many))).toEqual([{ path: '$.messages', message: 'has more than 100 messages' }]);
  });

  it('refuses blocks nested thousands deep, and too many tags, before Handlebars parses them', () => {
    const deep = `${'{{#if a}}'.repeat(5000)}x${'{{/if}}'.repeat(5000)}`;
    expect(problems(check(deep, open('a')))).toEqual([
      { path: '$.system_prompt', message: 'nests blocks more than 32 deep (line 1, column 288)' },
    ]);
    expect(problems(check(`{{json ${'(lookup '.repeat(40)}a "b"${')'.repeat(40)}}}`, open('a')))[0]!.message).toMatch(
      /subexpressions more than 16 deep/,
    );
    expect(problems(check('{{a}}'.repeat(1001), open('a')))[0]!.message).toMatch(/more than 1000 \{\{…\}\} tags/);
    // Comments, escaped tags and strings do not count as blocks.
    expect(check(`{{!-- ${'{{#if a}}'.repeat(100)} --}}\\{{#if}} {{json "{{#if"}}`, open('a'))._tag).toBe('Right');
  });
});
