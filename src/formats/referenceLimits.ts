import * as t from 'io-ts';
import { props, limits, listOf, named, objectWith, refine, variants } from './codecs';

/**
 * The limits OpenRouter's reference states inside fields that the service otherwise stores as
 * sent (plugins, tools, stop conditions, …). Each is checked where the reference would check it:
 * in the variant its discriminator names, on a value of the limit's own JSON kind. Nothing else of
 * these shapes is checked, so the service accepts a superset of the reference.
 *
 * Found by walking the reference's request schemas for maxLength, minLength, maxItems, minItems,
 * minimum, maximum, pattern and const; a limit is here only when a body that breaks it is invalid
 * under the reference (the messages format's tools and the responses format's input items end in
 * a catch-all variant that accepts any object with a string type, so their limits bind nothing).
 * test/http/referenceLimits.test.ts checks each against the reference and the service.
 */

const modelList = limits.array({ maxItems: 1024 }, limits.string({ maxLength: 1024 }));
const routerPlugin = props({
  allowed_models: modelList,
  excluded_models: modelList,
  cost_quality_tradeoff: limits.number({ minimum: 0, maximum: 10 }),
});
const fusionSettings = {
  analysis_models: limits.array({ minItems: 1, maxItems: 8 }),
  max_tool_calls: limits.number({ minimum: 1, maximum: 16 }),
  tools: limits.array({ maxItems: 8 }),
};

/** `plugins`, in every format: a list of objects, discriminated by `id`. */
export const plugins = named(
  'list of objects',
  listOf(
    objectWith(
      variants('id', {
        'auto-router': routerPlugin,
        'auto-beta-router': routerPlugin,
        'pareto-router': props({ max_price: limits.number({ minimum: 0 }), min_coding_score: limits.number({ minimum: 0, maximum: 1 }) }),
        fusion: props(fusionSettings),
      }),
    ),
  ),
);

/** `stop_server_tools_when`, in every format: at least one condition, discriminated by `type`. */
export const stopServerToolsWhen = refine(
  listOf(
    objectWith(
      variants('type', {
        has_tool_call: props({ tool_name: limits.string({ minLength: 1 }) }),
        finish_reason_is: props({ reason: limits.string({ minLength: 1 }) }),
      }),
    ),
  ),
  (conditions) => conditions.length >= 1,
  'list of at least one object',
  { minItems: 1 },
);

const toolName = limits.string({ minLength: 1, maxLength: 64, pattern: '^[a-zA-Z0-9 _-]+$' });
const sandbox = props({
  environment: variants('type', {
    container_reference: props({ container_id: limits.string({ minLength: 1, maxLength: 20, pattern: '^[\\w-]+$' }) }),
  }),
});
const parameters = (shape: t.Props) => props({ parameters: props(shape) });

/** OpenRouter's server tools, by their `type`, as chat-completions and responses both list them. */
export const serverTools = {
  'openrouter:advisor': parameters({ name: toolName }),
  'openrouter:bash': props({ parameters: sandbox }),
  'openrouter:fusion': parameters(fusionSettings),
  'openrouter:subagent': parameters({
    inherited_function_names: limits.array({}, limits.string({ minLength: 1 })),
    max_tool_calls: limits.number({ minimum: 1, maximum: 25 }),
    name: toolName,
  }),
} as const;

/** A `tools` list: objects, discriminated by `type`. */
export const toolList = (members: Record<string, t.Mixed>) => named('list of objects', listOf(objectWith(variants('type', members))));

/** The sandbox settings of a shell tool (responses' `openrouter:shell`). */
export const shellTool = props({ parameters: sandbox });
