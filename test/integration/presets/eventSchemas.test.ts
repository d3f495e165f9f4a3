import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import * as t from 'io-ts';
import * as E from 'fp-ts/Either';
import { renderEventSchemas, SCHEMA_DIR } from '#scripts/generate-event-schemas';
import {
  decide,
  evolve,
  initialState,
  type AddPresetVersion,
  type DecideProposal,
  type PresetCommandMetadata,
  type ProtectLabel,
} from '#src/presets/decider';
import { decideKeys, initialKeysState, type KeyCommandMetadata } from '#src/keys/decider';
import { CURRENT_SCHEMA_VERSION, type PresetEvent } from '#src/presets/events';
import { WORKSPACE_EVENT_TYPES, workspaceEvents } from '#src/workspaceLog/catalog';
import { toJsonSchema, type JsonSchema } from '#src/jsonSchema';

const dir = join(__dirname, '..', '..', '..', SCHEMA_DIR);

describe('the published event schemas', () => {
  it('are exactly what the codecs generate (run `npm run schemas:generate` after changing a codec)', () => {
    const files = renderEventSchemas();
    expect(
      readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort(),
    ).toEqual([...files.keys()].sort());
    for (const [name, text] of files) expect({ name, text: readFileSync(join(dir, name), 'utf8') }).toEqual({ name, text });
  });

  it('cover every event type and the metadata for every schema version up to the current one', () => {
    const names = [...renderEventSchemas().keys()];
    for (let v = 1; v <= CURRENT_SCHEMA_VERSION; v++) {
      for (const name of ['EventMetadata', 'PresetCreated', 'PresetVersionAdded', 'PresetVersionDesignated'])
        expect(names).toContain(`${name}.v${v}.json`);
    }
    for (const type of WORKSPACE_EVENT_TYPES) expect(names).toContain(`${type}.v${CURRENT_SCHEMA_VERSION}.json`);
  });

  it('refuse to publish a codec the walker cannot express, rather than publish a looser schema', () => {
    expect(() => toJsonSchema(t.type({ n: t.Int }))).toThrow(/cannot express/);
  });
});

/** Just enough JSON Schema to check the keywords the walker emits; anything else fails the test. */
const KNOWN = new Set([
  '$schema',
  '$id',
  '$comment',
  'title',
  'description',
  'type',
  'properties',
  'required',
  'const',
  'enum',
  'items',
  'anyOf',
  'allOf',
  'additionalProperties',
]);
const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const valid = (s: JsonSchema, v: unknown): boolean => {
  for (const k of Object.keys(s)) if (!KNOWN.has(k)) throw new Error(`the checker does not know ${k}`);
  if ('const' in s && !isDeepStrictEqual(s.const, v)) return false;
  if (s.enum && !(s.enum as unknown[]).includes(v)) return false;
  if (s.type && !(Array.isArray(s.type) ? s.type.includes(kind(v)) : s.type === kind(v))) return false;
  if (s.anyOf && !(s.anyOf as JsonSchema[]).some((m) => valid(m, v))) return false;
  if (s.allOf && !(s.allOf as JsonSchema[]).every((m) => valid(m, v))) return false;
  // `items` applies to arrays only (a nullable array is `type: ["array", "null"]` with items).
  if (s.items && Array.isArray(v) && !v.every((item) => valid(s.items as JsonSchema, item))) return false;
  if (s.type !== 'object' || kind(v) !== 'object') return true;
  const o = v as Record<string, unknown>;
  const props = (s.properties ?? {}) as Record<string, JsonSchema>;
  if (((s.required ?? []) as string[]).some((k) => !(k in o))) return false;
  return Object.entries(o).every(([k, x]) =>
    props[k] ? valid(props[k], x) : s.additionalProperties ? valid(s.additionalProperties as JsonSchema, x) : true,
  );
};

/** The value with one change: each key deleted, each value of another kind or another value, one key added. */
const variants = (value: unknown): unknown[] => {
  const out: unknown[] = [];
  const other: Record<string, unknown[]> = {
    string: [42, 'other'],
    number: ['1', (value as number) + 1],
    boolean: ['true'],
    null: [0],
    array: [{}],
    object: ['x', []],
  };
  out.push(...(other[kind(value)] ?? []));
  if (kind(value) === 'object') {
    const o = value as Record<string, unknown>;
    out.push({ ...o, addedField: 1 });
    for (const k of Object.keys(o)) {
      const { [k]: _, ...rest } = o;
      out.push(rest, ...variants(o[k]).map((x) => ({ ...o, [k]: x })));
    }
  }
  return out;
};

// Real events, as the decider makes them, plus the v1 shapes.
/** Commands as the decider takes them: `{ type, data, metadata }`, on one preset, at time 0. */
const preset = { workspaceId: 'ws', slug: 'bot' };
const by = (actorUserId = 'u', more: Partial<PresetCommandMetadata> = {}): PresetCommandMetadata => ({
  requestId: 'r',
  actorUserId,
  now: new Date(0),
  ...more,
});
/** A releaser's metadata: a key with presets:release. */
const releaser = (actorUserId = 'u', more: Partial<PresetCommandMetadata> = {}) => by(actorUserId, { mayRelease: true, ...more });
const add: AddPresetVersion = {
  type: 'AddPresetVersion',
  data: { ...preset, config: { model: 'm' }, systemPrompt: 'S' },
  metadata: { ...by(), newPresetId: 'p', newVersionId: 'v' },
};
const addWith = (data: Partial<AddPresetVersion['data']>, metadata: Partial<AddPresetVersion['metadata']> = {}): AddPresetVersion => ({
  type: 'AddPresetVersion',
  data: { ...add.data, ...data },
  metadata: { ...add.metadata, ...metadata },
});
const one = (e: E.Either<unknown, PresetEvent[]>) =>
  E.isRight(e)
    ? e.right[0]!
    : (() => {
        throw new Error('no event');
      })();
const created = one(decide(add, initialState()));
const added = one(decide(addWith({}, { newVersionId: 'v2' }), evolve(initialState(), created)));
const designated = one(
  decide({ type: 'DesignateVersion', data: { ...preset, version: 1 }, metadata: by() }, [created, added].reduce(evolve, initialState())),
);
const history = [created, added].reduce(evolve, initialState());
const all = (e: E.Either<unknown, PresetEvent[]>) =>
  E.isRight(e)
    ? e.right
    : (() => {
        throw new Error('no events');
      })();
const [renamed, disabled] = all(
  decide(
    { type: 'ChangePreset', data: { ...preset, name: 'Bot', description: 'Answers.', status: 'disabled', note: 'why' }, metadata: by() },
    history,
  ),
);
const [undescribed] = all(
  decide({ type: 'ChangePreset', data: { ...preset, description: null }, metadata: by() }, evolve(history, renamed!)),
);
const labelled = one(
  decide({ type: 'MoveLabel', data: { ...preset, label: 'production', version: 2, note: 'ship it' }, metadata: by() }, history),
);
const relabelled = one(
  decide({ type: 'MoveLabel', data: { ...preset, label: 'production', version: 1 }, metadata: by() }, evolve(history, labelled)),
);
const unlabelled = one(
  decide({ type: 'RemoveLabel', data: { ...preset, label: 'production' }, metadata: by() }, evolve(history, labelled)),
);
const split = one(
  decide(
    {
      type: 'SplitLabel',
      data: {
        ...preset,
        label: 'production',
        split: [
          { version: 2, weight: 5 },
          { version: 1, weight: 95 },
        ],
        note: 'canary',
      },
      metadata: by(),
    },
    evolve(history, labelled),
  ),
);
const resplit = one(
  decide(
    {
      type: 'SplitLabel',
      data: {
        ...preset,
        label: 'production',
        split: [
          { version: 1, weight: 50 },
          { version: 2, weight: 50 },
        ],
      },
      metadata: by(),
    },
    [labelled, split].reduce(evolve, history),
  ),
);
const promoted = one(
  decide(
    { type: 'MoveLabel', data: { ...preset, label: 'production', version: 2 }, metadata: by() },
    [labelled, split].reduce(evolve, history),
  ),
);
const notedAdd = one(decide(addWith({ note: 'faster model' }, { newVersionId: 'v3' }), history));
// Release control: protect production with two approvals, propose, approve twice (the second moves it), and the other endings.
const protect = (label: string | null, isProtected: boolean, approvals: number, note?: string): ProtectLabel => ({
  type: 'ProtectLabel',
  data: { ...preset, label, protected: isProtected, approvals, ...(note === undefined ? {} : { note }) },
  metadata: releaser(),
});
const protectedLabel = one(decide(protect('production', true, 2), history));
const protectedDesignation = one(decide(protect(null, true, 0, 'release only'), history));
const unprotected = one(decide(protect('production', false, 0), evolve(history, one(decide(protect('production', true, 0), history)))));
const guarded = evolve(history, protectedLabel);
// With approvals, lifting the protection, removing the label and changing the status are proposals (by a key made by 'lead').
const changeProposals = [
  { type: 'ProtectLabel' as const, data: { ...preset, label: 'production', protected: false, approvals: 0 } },
  { type: 'ProtectLabel' as const, data: { ...preset, label: 'production', protected: true, approvals: 1 } },
  { type: 'ChangePreset' as const, data: { ...preset, status: 'archived' as const } },
].map((c, i) => one(decide({ ...c, metadata: releaser('u', { newProposalId: `pc${i}`, actorMakers: ['lead'] }) }, guarded)));
const labelledGuarded = [labelled, protectedLabel].reduce(evolve, history);
/** Approving, rejecting or withdrawing proposal `proposalId` as `actorUserId`. */
const decideOn = (
  type: DecideProposal['type'],
  proposalId: string,
  actorUserId: string,
  { note, actorMakers }: { note?: string; actorMakers?: string[] } = {},
): DecideProposal => ({
  type,
  data: { ...preset, proposalId, ...(note === undefined ? {} : { note }) },
  metadata: releaser(actorUserId, actorMakers === undefined ? {} : { actorMakers }),
});
const removalProposed = one(
  decide(
    { type: 'RemoveLabel', data: { ...preset, label: 'production' }, metadata: releaser('u', { newProposalId: 'pr9' }) },
    labelledGuarded,
  ),
);
const removalApprovals = all(
  decide(
    decideOn('ApproveProposal', 'pr9', 'a2', { actorMakers: ['admin'] }),
    [removalProposed, one(decide(decideOn('ApproveProposal', 'pr9', 'a1'), evolve(labelledGuarded, removalProposed)))].reduce(
      evolve,
      labelledGuarded,
    ),
  ),
);
const removedByProposal = removalApprovals[1]!;
const liftedByProposal = all(
  decide(
    decideOn('ApproveProposal', 'pc0', 'a2'),
    [changeProposals[0]!, one(decide(decideOn('ApproveProposal', 'pc0', 'a1'), evolve(guarded, changeProposals[0]!)))].reduce(
      evolve,
      guarded,
    ),
  ),
)[1]!;
const archivedByProposal = all(
  decide(
    decideOn('ApproveProposal', 'pc2', 'a2'),
    [changeProposals[2]!, one(decide(decideOn('ApproveProposal', 'pc2', 'a1'), evolve(guarded, changeProposals[2]!)))].reduce(
      evolve,
      guarded,
    ),
  ),
)[1]!;
const proposed = one(
  decide(
    {
      type: 'MoveLabel',
      data: { ...preset, label: 'production', version: 2, note: 'ship' },
      metadata: releaser('u', { newProposalId: 'pr1' }),
    },
    guarded,
  ),
);
const pending = evolve(guarded, proposed);
const approvedOnce = one(decide(decideOn('ApproveProposal', 'pr1', 'a1'), pending));
const [approvedTwice, movedByProposal] = all(
  decide(decideOn('ApproveProposal', 'pr1', 'a2', { note: 'lgtm' }), evolve(pending, approvedOnce)),
);
const rejected = one(decide(decideOn('RejectProposal', 'pr1', 'a1'), pending));
const withdrawn = one(decide(decideOn('WithdrawProposal', 'pr1', 'u', { note: 'not yet' }), pending));
const keyMeta: KeyCommandMetadata = {
  requestId: 'r',
  actorUserId: 'admin',
  actorKeyId: '0123456789ab',
  actorWorkspaces: ['w1', 'w2'],
  actorScopes: new Set(['presets:read']),
  actorActsForOthers: true,
  now: new Date(0),
};
const keyData = {
  keyId: 'k1',
  keySha256: 'a'.repeat(64),
  userId: 'u',
  name: null,
  scopes: ['presets:read' as const],
  workspaces: ['w1'],
  expiresAt: null,
};
const keyCreated = E.getOrElseW(() => [])(decideKeys({ type: 'CreateApiKey', data: keyData, metadata: keyMeta }, initialKeysState()))[0]!;
const keyCreatedNamed = E.getOrElseW(() => [])(
  decideKeys(
    {
      type: 'CreateApiKey',
      data: { ...keyData, name: 'ci', workspaces: ['w1', 'w2'], expiresAt: new Date(86_400_000) },
      metadata: keyMeta,
    },
    initialKeysState(),
  ),
)[0]!;
const keyRevoked = E.getOrElseW(() => [])(
  decideKeys(
    { type: 'RevokeApiKey', data: { keyId: 'k1', note: 'leaked' }, metadata: keyMeta },
    { keys: { k1: { revoked: false, workspaces: ['w1'] } } },
  ),
)[0]!;
/** A version's data as schema version 2 wrote it: without the template fields. */
const withoutTemplate = (e: PresetEvent) => {
  const { templateFormat: _f, variables: _v, messages: _m, ...version } = (e.data as { version: Record<string, unknown> }).version;
  return { ...e.data, version };
};
const withoutCreator = (e: PresetEvent) => ({ ...withoutTemplate(e), version: { ...withoutTemplate(e).version, creatorId: undefined } });
const templated = {
  templateFormat: 'handlebars' as const,
  variables: { type: 'object', properties: { language: { type: 'string', enum: ['en', 'fr'] } }, required: ['language'] },
  messages: [
    { role: 'user' as const, content: 'Answer in {{language}}.' },
    { role: 'assistant' as const, content: 'Understood.' },
  ],
};
const templatedCreated = one(decide(addWith({ ...templated, systemPrompt: 'Reply in {{language}}.' }), initialState()));
const templatedAdded = one(decide(addWith({ ...templated, note: 'templated' }, { newVersionId: 'v4' }), history));
const v2Samples: Record<string, unknown[]> = {
  PresetCreated: [withoutTemplate(created), withoutTemplate(one(decide(addWith({ note: 'first' }), initialState())))],
  PresetVersionAdded: [withoutTemplate(added), withoutTemplate(notedAdd)],
  PresetVersionDesignated: [
    designated.data,
    one(decide({ type: 'DesignateVersion', data: { ...preset, version: 1, note: 'roll back' }, metadata: by() }, history)).data,
  ],
  PresetDetailsChanged: [renamed!.data, undescribed!.data],
  PresetStatusChanged: [disabled!.data],
  PresetLabelMoved: [labelled.data, relabelled.data, promoted.data, movedByProposal!.data],
  PresetLabelRemoved: [unlabelled.data],
  PresetLabelSplit: [split.data, resplit.data],
  PresetLabelProtected: [protectedLabel.data, protectedDesignation.data, unprotected.data],
  LabelMoveProposed: [proposed.data],
  LabelMoveApproved: [approvedOnce.data, approvedTwice!.data],
  LabelMoveRejected: [rejected.data],
  LabelMoveWithdrawn: [withdrawn.data],
  ApiKeyCreated: [keyCreated.data, keyCreatedNamed.data],
  ApiKeyRevoked: [keyRevoked.data],
};
const samples: Record<number, Record<string, unknown[]>> = {
  1: {
    EventMetadata: [
      { requestId: 'r', actorUserId: 'u', schemaVersion: 1 },
      { requestId: 'r', actorUserId: 'u', schemaVersion: 1, sourceFormat: 'messages' },
    ],
    PresetCreated: [JSON.parse(JSON.stringify(withoutCreator(created))), created.data],
    PresetVersionAdded: [JSON.parse(JSON.stringify(withoutCreator(added))), added.data],
    PresetVersionDesignated: [designated.data],
  },
  2: {
    EventMetadata: [
      { requestId: 'r', actorUserId: 'u', schemaVersion: 2 },
      { requestId: 'r', actorUserId: 'u', schemaVersion: 2, sourceFormat: 'responses' },
    ],
    ...v2Samples,
  },
  3: {
    EventMetadata: [
      { requestId: 'r', actorUserId: 'u', schemaVersion: 3 },
      { requestId: 'r', actorUserId: 'u', schemaVersion: 3, sourceFormat: 'responses', keyId: 'k', hashed: 'as_stored' },
    ],
    ...v2Samples,
    PresetCreated: [created.data, templatedCreated.data],
    PresetVersionAdded: [added.data, notedAdd.data, templatedAdded.data],
    PresetStatusChanged: [disabled!.data, archivedByProposal.data],
    PresetLabelRemoved: [unlabelled.data, removedByProposal.data],
    PresetLabelProtected: [protectedLabel.data, protectedDesignation.data, unprotected.data, liftedByProposal.data],
    LabelMoveApproved: [approvedOnce.data, approvedTwice!.data, removalApprovals[0]!.data],
    PresetChangeProposed: [...changeProposals.map((e) => e.data), removalProposed.data],
  },
};

describe('codec → schema round trip: the schema accepts exactly what the codec accepts', () => {
  for (const [version, { metadata, data }] of Object.entries(workspaceEvents.codecsBySchemaVersion)) {
    const codecs: Record<string, t.Mixed> = { EventMetadata: metadata, ...data };
    for (const [name, codec] of Object.entries(codecs)) {
      it(`${name} v${version}`, () => {
        const schema = JSON.parse(renderEventSchemas().get(`${name}.v${version}.json`)!) as JsonSchema;
        const own = samples[Number(version)]?.[name] ?? [];
        expect(own.length).toBeGreaterThan(0);
        for (const sample of own) {
          expect(E.isRight(codec.decode(sample))).toBe(true);
          for (const value of [sample, ...variants(sample)]) {
            expect({ value, schema: valid(schema, value) }).toEqual({ value, schema: E.isRight(codec.decode(value)) });
          }
        }
      });
    }
  }
});
