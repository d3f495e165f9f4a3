// Generates request bodies from OpenRouter's reference request schemas with json-schema-faker,
// seeded, so every run sends the same bodies. A separate process: json-schema-faker is an ES
// module, which jest's CommonJS runtime cannot load.
//   node test/support/generateBodies.mjs <reference.json> <seed> <count per schema> <schema name>...
// Prints {"<schema name>": [body, ...], ...}. Not every body is valid under the reference (the
// generator does not get every union right): the test keeps the valid ones, checked by ajv.
import { readFileSync } from 'node:fs';
import { createGeneratorSync } from 'json-schema-faker';

const [file, seed, count, ...names] = process.argv.slice(2);
const doc = JSON.parse(readFileSync(file, 'utf8'));

// Documentation keywords only; without them the generator stops copying `example` values that do
// not fit their own schema (the reference has a few).
const DOCS = new Set(['example', 'examples', 'description']);
const MAPS = new Set(['properties', 'schemas', 'mapping']);
const strip = (x, isMap = false) => {
  if (Array.isArray(x)) return x.map((v) => strip(v));
  if (x === null || typeof x !== 'object') return x;
  return Object.fromEntries(
    Object.entries(x)
      .filter(([k]) => isMap || !DOCS.has(k))
      .map(([k, v]) => [k, strip(v, !isMap && MAPS.has(k))]),
  );
};
const components = strip(doc.components);

const out = {};
for (const name of names) {
  const generator = createGeneratorSync({ seed: Number(seed), maxDepth: 4, maxDefaultItems: 2, refDepthMax: 3 });
  const schema = { ...components.schemas[name], components };
  out[name] = Array.from({ length: Number(count) }, () => {
    try {
      return generator.generate(schema);
    } catch {
      return null;
    }
  });
}
process.stdout.write(JSON.stringify(out));
