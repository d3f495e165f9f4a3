import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FormatName } from '../../src/formats';

/**
 * OpenRouter's published contract, cut to the /presets paths and what they use: the reference
 * this service is tested against. The copy in reference/ is the one the tests read (a clone has
 * no shared/ beside it); reference.test.ts checks it against shared/reference/ when that is there.
 */
export const REFERENCE_FILE = join(__dirname, '..', '..', 'reference', 'openrouter-presets.openapi.json');
export const SHARED_REFERENCE_FILE = join(__dirname, '..', '..', '..', 'shared', 'reference', 'openrouter-presets.openapi.json');
export const sharedReferenceExists = () => existsSync(SHARED_REFERENCE_FILE);

type Schema = { [keyword: string]: unknown };
export interface Reference {
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, { schema: Schema }> }> }>>;
  components: { schemas: Record<string, Schema> };
}

let cached: Reference | undefined;
export const reference = (): Reference => (cached ??= JSON.parse(readFileSync(REFERENCE_FILE, 'utf8')) as Reference);

/** The reference's request schema of each format. */
export const REQUEST_SCHEMA: Record<FormatName, string> = {
  chat_completions: 'ChatRequest',
  messages: 'MessagesRequest',
  responses: 'ResponsesRequest',
};

/** The top-level fields of a format's reference request schema. */
export const referenceFields = (format: FormatName): string[] =>
  Object.keys((reference().components.schemas[REQUEST_SCHEMA[format]]!.properties ?? {}) as object);
