import { describeEvent, slugOfStream } from '#src/console/describe';
import type { PresetEvent } from '#src/console/api/types';

/** The sentences of the console's history: what a person reads for each event of the contract. */
const event = (type: string, data: Record<string, unknown>, sourceFormat?: 'chat_completions' | 'messages' | 'responses'): PresetEvent => ({
  id: 'e',
  type,
  stream: 'preset-2f6f1c1e-1111-4222-8333-944455556666-support-bot',
  revision: 0,
  position: '1',
  recorded_at: '2026-01-01T00:00:00.000Z',
  data: { presetId: 'p', occurredAt: '2026-01-01T00:00:00.000Z', ...data },
  metadata: { requestId: 'r', actorUserId: 'alice', schemaVersion: 2, ...(sourceFormat ? { sourceFormat } : {}) },
});

const CASES: Array<[PresetEvent, Record<string, unknown>]> = [
  [
    event('PresetCreated', { version: { number: 1, note: 'first' } }, 'messages'),
    { what: 'created the preset with version 1', note: 'first', format: 'from an Anthropic messages body', version: 1 },
  ],
  [
    event('PresetVersionAdded', { version: { number: 4 } }, 'responses'),
    { what: 'added version 4', format: 'from an OpenAI responses body', version: 4 },
  ],
  [
    event('PresetVersionAdded', { version: { number: 5, templateFormat: 'handlebars' } }, 'chat_completions'),
    { what: 'added version 5, a template', format: 'from an OpenAI chat-completions body', version: 5 },
  ],
  [event('PresetCreated', { version: { number: 1, templateFormat: 'none' } }), { what: 'created the preset with version 1', version: 1 }],
  [
    event('PresetVersionDesignated', { versionNumber: 1, previousVersionNumber: 3, note: 'rollback' }),
    { what: 'designated version 1 (was version 3)', note: 'rollback', version: 1 },
  ],
  [
    event('PresetDetailsChanged', { name: 'Support bot', description: null }),
    { what: 'renamed it to “Support bot” and removed the description' },
  ],
  [event('PresetDetailsChanged', { description: 'Answers tickets.' }), { what: 'set the description to “Answers tickets.”' }],
  [event('PresetStatusChanged', { status: 'archived', previousStatus: 'active' }), { what: 'changed the status from active to archived' }],
  [
    event('PresetLabelMoved', { label: 'production', versionNumber: 2, previousVersionNumber: null }),
    { what: 'put the label “production” on version 2', version: 2 },
  ],
  [
    event('PresetLabelMoved', { label: 'production', versionNumber: 3, previousVersionNumber: 2 }),
    { what: 'moved the label “production” from version 2 to version 3', version: 3 },
  ],
  [event('PresetLabelRemoved', { label: 'staging', versionNumber: 4 }), { what: 'removed the label “staging” (it named version 4)' }],
  [
    event('PresetLabelSplit', {
      label: 'production',
      versions: [
        { versionNumber: 3, versionId: 'a', weight: 95 },
        { versionNumber: 4, versionId: 'b', weight: 5 },
      ],
      previousVersionNumber: 3,
      previousVersions: null,
    }),
    { what: 'split the label “production” between version 3 (95), version 4 (5) (was version 3)' },
  ],
  [
    event('PresetLabelSplit', {
      label: 'production',
      versions: [
        { versionNumber: 3, versionId: 'a', weight: 50 },
        { versionNumber: 4, versionId: 'b', weight: 50 },
      ],
      previousVersionNumber: null,
      previousVersions: [
        { versionNumber: 3, versionId: 'a', weight: 95 },
        { versionNumber: 4, versionId: 'b', weight: 5 },
      ],
    }),
    { what: 'split the label “production” between version 3 (50), version 4 (50) (was version 3 (95), version 4 (5))' },
  ],
  [
    event('PresetLabelMoved', {
      label: 'production',
      versionNumber: 4,
      previousVersionNumber: null,
      previousVersions: [
        { versionNumber: 3, versionId: 'a', weight: 50 },
        { versionNumber: 4, versionId: 'b', weight: 50 },
      ],
    }),
    { what: 'ended the split of the label “production” (version 3 (50), version 4 (50)): it names version 4', version: 4 },
  ],
  [event('PresetSomethingNew', {}), { what: 'recorded PresetSomethingNew' }],
];

it.each(CASES.map(([e, expected]) => [e.type, e, expected] as const))('%s: %#', (_type, e, expected) => {
  expect(describeEvent(e)).toEqual({ note: undefined, format: undefined, version: undefined, ...expected });
});

it('reads the slug out of a stream name, whatever characters the slug has', () => {
  expect(slugOfStream('preset-2f6f1c1e-1111-4222-8333-944455556666-support-bot')).toBe('support-bot');
  expect(slugOfStream('preset-2f6f1c1e-1111-4222-8333-944455556666-a.b~c_d')).toBe('a.b~c_d');
  expect(slugOfStream('orders-1')).toBeUndefined();
});
