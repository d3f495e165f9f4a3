/**
 * Writes the published event contract, `schemas/events/<Name>.v<schema version>.json`, from the
 * io-ts codecs of every schema version (`npm run schemas:generate`). A test renders the same
 * files and compares them with the committed ones, so a codec change without regenerated
 * schemas fails CI.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { workspaceEvents } from '../src/workspaceLog/catalog';
import { KEY_EVENT_TYPES } from '../src/keys/events';
import { auditCodecsBySchemaVersion } from '../src/audit/events';
import { toJsonSchema } from '../src/jsonSchema';

export const SCHEMA_DIR = join('schemas', 'events');

const DESCRIPTIONS: Record<string, string> = {
  EventMetadata: 'The metadata of every preset event. schemaVersion says which schema files describe the event.',
  PresetCreated: 'The data of PresetCreated: a preset was created with version 1, which is designated.',
  PresetVersionAdded: 'The data of PresetVersionAdded: a version was added to a preset and became its designated version.',
  PresetVersionDesignated:
    'The data of PresetVersionDesignated: an existing version became the designated one (a rollback or a roll forward).',
  PresetDetailsChanged:
    "The data of PresetDetailsChanged: the preset's name or description changed; only the fields that changed are present.",
  PresetStatusChanged: "The data of PresetStatusChanged: the preset's status changed (active, disabled or archived).",
  PresetLabelMoved:
    'The data of PresetLabelMoved: a label was pointed at a version (previousVersionNumber is null for a new label; previousVersions is the split it ended, if it was split).',
  PresetLabelRemoved: 'The data of PresetLabelRemoved: a label was removed; versionNumber is the version it named.',
  PresetLabelSplit:
    'The data of PresetLabelSplit: a label was split between versions by relative weights (a rollout), ascending by version; previousVersionNumber or previousVersions is what it named before (both null for a new label).',
  AuditMetadata: "The metadata of every event of a workspace's audit stream (audit-<workspace uuid>).",
  LogCheckpointed:
    'The data of LogCheckpointed: the head (revision and chain hash) of every preset stream of the workspace that changed after `after` ' +
    'up to `through` (feed positions), sorted by stream, and digest = SHA-256 of their RFC 8785 JSON.',
};

const file = (
  name: string,
  version: number,
  codec: Parameters<typeof toJsonSchema>[0],
  source = 'src/presets/events.ts',
): [string, string] => {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: `urn:presets:events:${name}:v${version}`,
    title: `${name}, schema version ${version}`,
    $comment: `Generated from the io-ts codecs in ${source} by npm run schemas:generate; do not edit.`,
    description: DESCRIPTIONS[name] ?? name,
    ...toJsonSchema(codec),
  };
  return [`${name}.v${version}.json`, `${JSON.stringify(schema, null, 2)}\n`];
};

/** Every schema file by name, as the codecs say it should be. */
export const renderEventSchemas = (): Map<string, string> => {
  const files = new Map<string, string>();
  const keyTypes: ReadonlySet<string> = new Set(KEY_EVENT_TYPES);
  for (const [version, { metadata, data }] of Object.entries(workspaceEvents.codecsBySchemaVersion)) {
    const [name, text] = file('EventMetadata', Number(version), metadata, 'src/events/envelope.ts');
    files.set(name, text);
    for (const [type, codec] of Object.entries(data) as [string, Parameters<typeof toJsonSchema>[0]][]) {
      files.set(...file(type, Number(version), codec, keyTypes.has(type) ? 'src/keys/events.ts' : 'src/presets/events.ts'));
    }
  }
  for (const [version, { metadata, data }] of Object.entries(auditCodecsBySchemaVersion)) {
    files.set(...file('AuditMetadata', Number(version), metadata, 'src/audit/events.ts'));
    for (const [type, codec] of Object.entries(data)) files.set(...file(type, Number(version), codec, 'src/audit/events.ts'));
  }
  return files;
};

if (require.main === module) {
  const dir = process.argv[2] ?? join(process.cwd(), SCHEMA_DIR);
  mkdirSync(dir, { recursive: true });
  const files = renderEventSchemas();
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
  const stale = readdirSync(dir).filter((name) => name.endsWith('.json') && !files.has(name));
  process.stdout.write(`wrote ${files.size} schemas to ${dir}\n`);
  if (stale.length > 0) process.stdout.write(`not generated (remove them if their codecs are gone): ${stale.join(', ')}\n`);
}
