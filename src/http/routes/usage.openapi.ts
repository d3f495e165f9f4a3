import type * as t from 'io-ts';
import type { JsonSchema } from '../../jsonSchema';
import { LabelSplitView } from '../../../projections/readmodel/readModel';
import { ServedVersion } from '../../resolve/codecs';
import type { Operation } from '../operations';
import { SplitLabelBody } from './lifecycle';
import { SPLIT_KEY_HEADER } from './resolve';
import { MAX_COUNTS_PER_PRESET_HOUR, MAX_REPORT_AGE_HOURS, MAX_REPORTED_COUNTS, MAX_USAGE_DAYS, UsageAnswer, UsageReport } from './usage';

/**
 * The OpenAPI side of rollouts (split labels, the served version, usage): its operations, schemas
 * and parameters, spread into src/http/openapi.ts's tables.
 */
export const ROLLOUT_SCHEMAS: ReadonlyArray<[string, t.Any]> = [
  ['LabelSplit', LabelSplitView],
  ['SplitLabelRequest', SplitLabelBody],
  ['ServedVersion', ServedVersion],
  ['UsageAnswer', UsageAnswer],
  ['UsageReport', UsageReport],
];

export const ROLLOUT_PARAMETERS: Record<string, JsonSchema> = {
  [SPLIT_KEY_HEADER]: {
    name: SPLIT_KEY_HEADER,
    in: 'header',
    description:
      'The key a split label is resolved by (a user or session id): the same key gets the same version while the weights stay the same. ' +
      "Without it, the body's user (chat-completions), metadata.user_id (messages), user or safety_identifier (responses); with none, a random pick.",
    schema: { type: 'string' },
  },
  usageFrom: {
    name: 'from',
    in: 'query',
    description: 'An ISO 8601 timestamp: counts of the hours from the one it is in (default: 24 hours before `to`).',
    schema: { type: 'string', format: 'date-time' },
  },
  usageTo: {
    name: 'to',
    in: 'query',
    description: `An ISO 8601 timestamp: counts of the hours that start before it (default: now); at most ${MAX_USAGE_DAYS} days after from.`,
    schema: { type: 'string', format: 'date-time' },
  },
};

export const ROLLOUT_OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/api/v1/presets/{slug}/usage',
    operationId: 'getPresetUsage',
    tag: 'Presets',
    scope: 'presets:read',
    summary: 'Resolutions answered, per hour, label and version',
    description:
      'How many resolutions of this preset were answered, by the service and by the presets/client instances that report their counts, ' +
      'per hour, label (null: none named) and version, with totals per label and version. Counts are metrics kept apart from the events.',
    parameters: ['slug', 'usageFrom', 'usageTo'],
    answers: { '200': { description: 'The counts.', content: { 'application/json': 'UsageAnswer' } } },
    errors: ['400', '401', '403', '404', '429', '500'],
  },
  {
    method: 'post',
    path: '/api/v1/usage',
    operationId: 'reportUsage',
    tag: 'Presets',
    scope: 'presets:read',
    summary: 'Report resolutions answered in a gateway',
    description:
      "What presets/client's flushUsage() sends: counts per preset slug, label, version and hour, added to the service's. " +
      `Each count must name a preset of the workspace, one of its versions, and one of its labels (or \`latest\`, or null), in an hour that starts at most ${MAX_REPORT_AGE_HOURS} hours ago and not in the future; ` +
      `at most ${MAX_REPORTED_COUNTS} counts a report, and at most ${MAX_COUNTS_PER_PRESET_HOUR} distinct (label, version) counts of a preset in an hour, over all reports. ` +
      'Anything else refuses the whole report (400 naming each count at fault, nothing counted).',
    requestBody: 'UsageReport',
    answers: { '204': { description: 'Counted.' } },
    errors: ['400', '401', '403', '413', '415', '429', '500', '503'],
  },
];
