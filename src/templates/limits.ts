/**
 * The bounds on templated versions (docs/templates.md, "Bounds"). A template and its variables
 * schema are user input, and so are the values a request fills them with: each bound keeps one
 * request, or one version, from holding a thread.
 */

/** `{{…}}` tags in a version, its system prompt and messages together (Handlebars compiles ~0.1–0.2 ms a tag). */
export const MAX_TAGS = 1000;
/** Blocks (`{{#…}}`) nested in one another; refused before Handlebars parses (it takes seconds on thousands). */
export const MAX_BLOCK_DEPTH = 32;
/** Subexpressions (`(…)`) nested in one tag. */
export const MAX_SUBEXPRESSION_DEPTH = 16;
/** Messages a version may hold after its system prompt. */
export const MAX_MESSAGES = 100;

/** The rendered system prompt and messages together, in bytes of UTF-8: 1 MiB. */
export const MAX_OUTPUT_BYTES = 1024 * 1024;
/** Template statements one render may run (each statement of a block counts each time the block runs). */
export const MAX_STEPS = 1_000_000;
/** Characters helpers (`json`) and lists written whole may make in one render, before the output's own bound. */
export const MAX_PRODUCED_CHARS = 16 * 1024 * 1024;

/** A variables schema as JSON text, in characters. */
export const MAX_SCHEMA_CHARS = 32 * 1024;
/** How deep a variables schema's JSON may nest. */
export const MAX_SCHEMA_DEPTH = 32;
/** Subschemas of a variables schema, each `$ref` counted as a copy of what it names: validation does at most this much work per value. */
export const MAX_SCHEMA_NODES = 500;
/** Characters of one `pattern` (or `patternProperties` key). */
export const MAX_PATTERN_CHARS = 1000;
/** `uniqueItems` compares items pairwise: only with `maxItems` at most this. */
export const MAX_UNIQUE_ITEMS = 1000;
/** How deep a request's variable values may nest (as a request body may: src/http/middleware/jsonBody.ts). */
export const MAX_VALUE_DEPTH = 128;

/** Compiled versions kept per process (src/templates/render.ts). */
export const COMPILED_VERSIONS_KEPT = 4096;
