import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { openApiDocument, OPERATIONS, type Operation } from '#src/http/openapi';
import { referenceValidator } from './reference';

/**
 * The one check of every answer the HTTP suites receive (request() in service.ts, call() in
 * process.ts, openSse() in sse.ts, checkedFetch() below): it must conform to
 *  (a) the service's own OpenAPI document: the operation documents the status, the required
 *      headers are there and fit, and the body fits the schema of its media type; a request that
 *      names no operation may only be answered 401, 404 or 405 in the error envelope;
 *  (b) for the preset operations' 200 answers, OpenRouter's reference response schema of the
 *      matching operation (PresetWithDesignatedVersion and the list and version shapes).
 * Event-stream answers are checked for their status and headers only. A failing check throws, with
 * the request, the status and ajv's errors, from the helper: the test that made the request fails.
 */

type Json = Record<string, unknown>;
const doc = openApiDocument() as { paths: Record<string, Record<string, Json>>; components: Record<string, Record<string, Json>> };

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: 'own', paths: doc.paths, components: doc.components });

const pointer = (...segments: string[]) => segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const compiled = new Map<string, ValidateFunction>();
const validatorAt = (ptr: string): ValidateFunction => {
  let v = compiled.get(ptr);
  if (!v) compiled.set(ptr, (v = ajv.compile({ $ref: `own#/${ptr}` })));
  return v;
};

const templates = OPERATIONS.map((op) => ({
  op,
  regex: new RegExp(`^${op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

/** The reference's response schema for the 200 answer of each preset operation. */
const REFERENCE_ANSWERS: Record<string, string> = {
  createPresetsChatCompletions: 'CreatePresetFromInferenceResponse',
  createPresetsMessages: 'CreatePresetFromInferenceResponse',
  createPresetsResponses: 'CreatePresetFromInferenceResponse',
  getPreset: 'GetPresetResponse',
  listPresets: 'ListPresetsResponse',
  listPresetVersions: 'ListPresetVersionsResponse',
  getPresetVersion: 'GetPresetVersionResponse',
  // Not operations of the reference, but the same answer as getPreset's.
  createPresetVersion: 'GetPresetResponse',
  designatePresetVersion: 'GetPresetResponse',
  updatePreset: 'GetPresetResponse',
  archivePreset: 'GetPresetResponse',
  movePresetLabel: 'GetPresetResponse',
  removePresetLabel: 'GetPresetResponse',
  restorePreset: 'GetPresetResponse',
  protectPresetLabel: 'GetPresetResponse',
  protectPresetDesignation: 'GetPresetResponse',
  approveProposal: 'GetPresetResponse',
  rejectProposal: 'GetPresetResponse',
  withdrawProposal: 'GetPresetResponse',
};

export interface Exchange {
  method: string;
  /** The path and query as requested, or a whole URL. */
  url: string;
  status: number;
  header(name: string): string | undefined;
  /** The body's text; undefined for an event stream (not read). */
  body: string | undefined;
}

export class ContractViolation extends Error {
  override readonly name = 'ContractViolation';
}

const resolve = (obj: Json): [Json, string[]] => {
  if (typeof obj.$ref !== 'string') return [obj, []];
  const path = obj.$ref.replace(/^#\//, '').split('/');
  let target: unknown = doc;
  for (const segment of path) target = (target as Json)[segment];
  return [target as Json, path];
};

export const operationOf = (method: string, path: string): Operation | undefined => {
  const m = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
  return templates.find((t) => t.op.method === m && t.regex.test(path))?.op;
};

/** Checks one answer; returns nothing, or throws a ContractViolation saying what is wrong. */
export const checkExchange = (x: Exchange): void => {
  const path = new URL(x.url, 'http://localhost').pathname;
  const where = `${x.method} ${x.url} → ${x.status}`;
  const fail = (problem: string, detail?: unknown): never => {
    throw new ContractViolation(
      `${where}: ${problem}${detail === undefined ? '' : `\n${JSON.stringify(detail, null, 2).slice(0, 4000)}`}\nbody: ${(x.body ?? '').slice(0, 1000)}`,
    );
  };
  const type = (x.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const op = operationOf(x.method, path);
  let responsePointer: string[];
  let response: Json;
  if (!op) {
    if (![401, 404, 405].includes(x.status))
      fail('no operation of the document matches this request, and the answer is not a 401, 404 or 405');
    [response, responsePointer] = resolve({ $ref: `#/components/responses/${x.status === 405 ? '405' : x.status}` });
  } else {
    const responses = doc.paths[op.path]![op.method]!.responses as Record<string, Json>;
    const documented = responses[String(x.status)];
    if (!documented) fail(`status ${x.status} is not documented for ${op.operationId} (documented: ${Object.keys(responses).join(', ')})`);
    [response, responsePointer] = resolve(documented!);
    if (responsePointer.length === 0) responsePointer = ['paths', op.path, op.method, 'responses', String(x.status)];
  }

  for (const [name, ref] of Object.entries((response.headers ?? {}) as Record<string, Json>)) {
    const [header, headerPointer] = resolve(ref);
    const value = x.header(name);
    if (value === undefined) {
      if (header.required) fail(`header ${name} is missing`);
      continue;
    }
    const validate = validatorAt(pointer(...headerPointer, 'schema'));
    if (!validate(value)) fail(`header ${name}: ${JSON.stringify(value)} does not fit its schema`, validate.errors);
  }

  const content = response.content as Record<string, Json> | undefined;
  if (!content) {
    if (x.body) fail('the answer has a body, but the document gives this status none');
    return;
  }
  if (!(type in content)) fail(`content type ${JSON.stringify(type)} is not documented (documented: ${Object.keys(content).join(', ')})`);
  if (type === 'text/event-stream' || x.body === undefined || x.method.toUpperCase() === 'HEAD') return;
  if (type !== 'application/json') return; // the page and its files: a string, nothing more to check
  let body: unknown;
  try {
    body = JSON.parse(x.body);
  } catch {
    return fail('the body is not JSON');
  }
  const validate = validatorAt(pointer(...responsePointer, 'content', type, 'schema'));
  if (!validate(body)) fail("the body does not conform to the service's OpenAPI document", validate.errors);

  // A dry run (?dry_run=true) is this service's own extension: it answers what a version would keep, not a preset.
  const dryRun = new URL(x.url, 'http://service').searchParams.get('dry_run') === 'true';
  const referenceSchema = op && x.status === 200 && !dryRun ? REFERENCE_ANSWERS[op.operationId] : undefined;
  if (referenceSchema) {
    const reference = referenceValidator(referenceSchema);
    if (!reference(body)) fail(`the body does not conform to OpenRouter's reference (${referenceSchema})`, reference.errors);
  }
};

/** Checks a fetch Response: reads a copy of its body, except an event stream's. */
export const checkResponse = async (method: string, url: string, res: Response): Promise<void> => {
  const stream = (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
  const body = stream ? undefined : await res.clone().text();
  checkExchange({ method, url, status: res.status, header: (n) => res.headers.get(n) ?? undefined, body });
};

/** fetch, with its answer checked. */
export const checkedFetch = async (url: string, init: RequestInit = {}): Promise<Response> => {
  const res = await fetch(url, init);
  await checkResponse(init.method ?? 'GET', url, res);
  return res;
};
