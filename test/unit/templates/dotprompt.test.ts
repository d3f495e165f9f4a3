import fc from 'fast-check';
import * as E from 'fp-ts/Either';
import { Dotprompt } from 'dotprompt';
import { renderVersion } from '#src/templates/render';

/**
 * The service renders a template as Google's `dotprompt` package does (its Handlebars options and
 * helpers), against that package itself: for generated templates of the constructs a version may
 * use (names, #if/#else, #unless, #each with @index, #with, Mustache-style sections, json, ifEquals,
 * whitespace control and standalone lines) and generated values, the text is the same. (Dotprompt
 * answers a template as one user message, and none when the text is blank.)
 */
const dotprompt = new Dotprompt();

const text = fc.stringMatching(/^[a-z <&>"'.,\n]{0,12}$/).filter((s) => !s.includes('{'));
const name = fc.constantFrom('v', 'w', 'flag');
const template: fc.Arbitrary<string> = fc.letrec<{ part: string; parts: string }>((tie) => ({
  parts: fc.array(tie('part'), { maxLength: 5 }).map((parts) => parts.join('')),
  part: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    text,
    name.map((n) => `{{${n}}}`),
    name.map((n) => `{{~${n}~}}`),
    name.map((n) => `{{json ${n}}}`),
    fc.tuple(name, tie('parts'), tie('parts')).map(([n, a, b]) => `{{#if ${n}}}${a}{{else}}${b}{{/if}}`),
    fc.tuple(name, tie('parts')).map(([n, a]) => `\n{{#unless ${n}}}\n${a}\n{{/unless}}\n`),
    tie('parts').map((a) => `{{#each list}}{{@index}}:{{this}}${a}{{/each}}`),
    tie('parts').map((a) => `{{#with obj}}{{a}}${a}{{../v}}{{/with}}`),
    tie('parts').map((a) => `{{#list}}[{{.}}]${a}{{/list}}{{^list}}none{{/list}}`),
    fc.tuple(name, tie('parts')).map(([n, a]) => `{{#ifEquals ${n} "x"}}${a}{{/ifEquals}}`),
  ),
})).parts;
const values = fc.record({
  v: fc.oneof(fc.string({ maxLength: 5 }), fc.boolean(), fc.integer()),
  w: fc.constantFrom('x', 'y', ''),
  flag: fc.boolean(),
  list: fc.array(fc.string({ maxLength: 3 }), { maxLength: 3 }),
  obj: fc.record({ a: fc.string({ maxLength: 3 }) }),
});

let id = 0;
it('renders every generated template to the text the dotprompt package renders', async () => {
  await fc.assert(
    fc.asyncProperty(template, values, async (source, input) => {
      // A leading "---" would be front matter to Dotprompt.
      fc.pre(!source.trimStart().startsWith('---'));
      const ours = renderVersion(
        { id: `dotprompt-${++id}`, system_prompt: source, template_format: 'handlebars', variables: null },
        input,
        '$.v',
      );
      if (E.isLeft(ours)) throw new Error(`${source}: ${JSON.stringify(ours.left)}`);
      const theirs = await dotprompt.render(source, { input });
      const texts = theirs.messages.flatMap((m) => m.content.map((part) => ('text' in part ? part.text : '')));
      if (texts.length === 0) expect(ours.right.system.trim()).toBe('');
      else expect({ source, text: ours.right.system }).toEqual({ source, text: texts.join('') });
    }),
    { numRuns: 400 },
  );
});
