import Router from '@koa/router';
import * as E from 'fp-ts/Either';
import getRawBody from 'raw-body';
import type { ParameterizedContext } from 'koa';
import type { ReadModelQueries, VersionView } from '../../../projections/readmodel/readModel';
import { DOTPROMPT_MEDIA_TYPE, parseDotprompt, sameJson, toDotprompt, type DotpromptVersion } from '../../dotprompt/file';
import type { ValidationProblem } from '../../validation';
import { ApiError, badRequest, notFound } from '../errors';
import { answeredNotModified, etagOf, parseIfMatch } from '../etag';
import { requireScope } from '../middleware/auth';
import { noteOf } from '../note';
import { queryReader } from '../query';
import type { AppContext, AppState } from '../types';
import { dryRunAnswer, isDryRun } from './dryRun';
import { readVersionBody, type VersionDraft } from './versionBody';
import { versionAdder, type WriteDeps } from './writes';

/**
 * A version as a Dotprompt file (docs/prompts-as-code.md): `GET …/dotprompt` answers one,
 * `POST …/dotprompt` makes a version from one, through the body `POST …/versions` takes (the same
 * checks, the same command). A file whose version is the designated one makes none: `unchanged`.
 */
export interface DotpromptDeps extends WriteDeps {
  readModel: Pick<ReadModelQueries, 'getPreset' | 'getVersion'>;
}

type Ctx = ParameterizedContext<AppState, AppContext>;

/** The media types a file may come as (none: taken as one). */
const FILE_TYPES = ['text/x-dotprompt', 'text/plain', 'application/octet-stream'];
const utf8 = new TextDecoder('utf-8', { fatal: true });

const readFile = async (ctx: Ctx, limit: number): Promise<string> => {
  if (ctx.get('Content-Type') !== '' && !ctx.request.is(FILE_TYPES)) {
    throw new ApiError(415, 'the body must be a Dotprompt file, sent with "Content-Type: text/x-dotprompt"');
  }
  const charset = ctx.request.charset;
  if (charset && charset.toLowerCase() !== 'utf-8') throw new ApiError(415, `charset ${charset} is not supported; send UTF-8`);
  const length = ctx.request.length;
  const tooLarge = () => new ApiError(413, `the body is larger than ${limit} bytes`, { limit_bytes: limit });
  if (length !== undefined && length > limit) throw tooLarge();
  let raw: Buffer;
  try {
    raw = await getRawBody(ctx.req, { length, limit });
  } catch (error) {
    if ((error as { type?: string }).type === 'entity.too.large') throw tooLarge();
    throw badRequest('the request body was cut short');
  }
  try {
    return utf8.decode(raw);
  } catch {
    throw badRequest('the body is not valid UTF-8');
  }
};

/** A problem of the version the file stands for (a `$.…` path of `POST …/versions`), located in the file. */
const inFile = (problem: ValidationProblem, lines: DotpromptVersion['lines']): ValidationProblem => {
  const { path, message } = problem;
  const config = /^\$\.config(?:\.([A-Za-z_$][\w$]*)|\[("(?:[^"\\]|\\.)*")\])(.*)$/.exec(path);
  if (config) {
    const key = config[1] ?? (JSON.parse(config[2]!) as string);
    const field =
      key === 'model'
        ? 'model'
        : key === 'tools' || key === 'provider'
          ? `metadata.presets.${key}`
          : key === 'response_format'
            ? 'output'
            : `config.${key}`;
    return { path: `${field}${config[3]}`, message };
  }
  // A template's problem says its line in the text: the file's line instead.
  const fileLine = (start: number | undefined, m: string) =>
    start === undefined
      ? m
      : m
          .replace(
            /\(line (\d+), column (\d+)\)/,
            (_all, line: string, column: string) => `(line ${start + Number(line) - 1}, column ${column})`,
          )
          .replace(/Parse error on line (\d+):/, (_all, line: string) => `Parse error on line ${start + Number(line) - 1}:`);
  if (path === '$.system_prompt') return { path: 'template', message: fileLine(lines.system, message) };
  const messageAt = /^\$\.messages\[(\d+)\](.*)$/.exec(path);
  if (messageAt) {
    const index = Number(messageAt[1]);
    return { path: `template (message ${index + 1})`, message: fileLine(lines.messages[index], message) };
  }
  if (path.startsWith('$.variables')) return { path: `input.schema${path.slice('$.variables'.length)}`, message };
  if (path === '$.format') return { path: 'metadata.presets.source_format', message };
  return { path: path === '$.messages' ? 'template' : path, message };
};

/** Whether the version a file makes is the version already there: the same texts and JSON (key order aside). */
const sameVersion = (draft: VersionDraft, version: VersionView): boolean =>
  draft.format === version.source_format &&
  draft.draft.systemPrompt === version.system_prompt &&
  draft.template.templateFormat === version.template_format &&
  sameJson(draft.draft.config, version.config) &&
  sameJson(draft.template.variables, version.variables) &&
  sameJson(draft.template.messages, version.messages);

export const dotpromptRoutes = (router: Router<AppState, AppContext>, deps: DotpromptDeps) => {
  const addVersion = versionAdder(deps);

  router.get('/api/v1/presets/:slug/dotprompt', requireScope('presets:read'), async (ctx) => {
    const slug = ctx.params.slug!;
    const q = queryReader(ctx.query);
    const number = q.int('version', 1, 999_999_999, 0);
    const label = ctx.query.label;
    if (label !== undefined && typeof label !== 'string') q.problem('label', 'give it once');
    if (label !== undefined && ctx.query.version !== undefined) q.problem('label', 'give a version or a label, not both');
    q.done();
    const record = await deps.readModel.getPreset(ctx.state.workspaceId, slug);
    if (!record) throw notFound(`no preset ${JSON.stringify(slug)} in this workspace`);
    const { view } = record;
    let wanted = number || view.designated_version.version;
    if (typeof label === 'string') {
      const named = Object.hasOwn(view.labels, label) ? view.labels[label] : undefined;
      if (named === undefined) throw notFound(`preset ${JSON.stringify(slug)} has no label ${JSON.stringify(label)}`);
      if (typeof named !== 'number') {
        throw new ApiError(
          409,
          `label ${JSON.stringify(label)} of preset ${JSON.stringify(slug)} is split between versions ${named.split.map((s) => s.version).join(', ')}: ask for one with ?version=N`,
          { reason: 'label_split' },
        );
      }
      wanted = named;
    }
    const version = wanted === view.designated_version.version ? view.designated_version : await deps.readModel.getVersion(view.id, wanted);
    if (!version) throw notFound(`preset ${JSON.stringify(slug)} has no version ${wanted}`);
    // The file is made of the slug and the version, which never changes: its id names the bytes.
    if (answeredNotModified(ctx, `"${version.id}"`)) return;
    ctx.set('Content-Type', DOTPROMPT_MEDIA_TYPE);
    ctx.set('Content-Disposition', `inline; filename="${slug}.prompt"`);
    ctx.body = await toDotprompt(slug, version);
  });

  router.post('/api/v1/presets/:slug/dotprompt', requireScope('presets:write'), async (ctx) => {
    const slug = ctx.params.slug!;
    const dryRun = isDryRun(ctx.query.dry_run);
    const expected = parseIfMatch(ctx.get('If-Match'));
    const note = noteOf(ctx);
    const text = await readFile(ctx, deps.bodyLimitBytes);
    const parsed = await parseDotprompt(text);
    if (E.isLeft(parsed)) throw badRequest('the body is not a Dotprompt file this service can read', parsed.left);
    const file: DotpromptVersion = parsed.right;
    if (file.slug !== undefined && file.slug !== slug) {
      throw badRequest(`the file is preset ${JSON.stringify(file.slug)}'s (metadata.presets.slug), not ${JSON.stringify(slug)}'s`, [
        {
          path: 'metadata.presets.slug',
          message: `names ${JSON.stringify(file.slug)}; change it, or remove it, to make a version of ${JSON.stringify(slug)}`,
        },
      ]);
    }
    const version = readVersionBody(file.body);
    if (E.isLeft(version)) {
      throw badRequest(
        'the file does not make a valid version',
        version.left.map((p) => inFile(p, file.lines)),
      );
    }
    const draft: VersionDraft = { ...version.right, ...(note !== undefined ? { note } : {}) };

    const record = await deps.readModel.getPreset(ctx.state.workspaceId, slug);
    if (expected !== undefined && record && record.revision !== expected) {
      throw new ApiError(412, `preset ${JSON.stringify(slug)} has changed since revision ${expected}; read it again`);
    }
    const unchanged = record !== null && sameVersion(draft, record.view.designated_version);
    if (dryRun) {
      ctx.body = { ...dryRunAnswer(draft.format, draft.draft, draft.template, draft.note), unchanged };
      return;
    }
    if (unchanged) {
      ctx.status = 200;
      ctx.set('ETag', etagOf(record.revision));
      ctx.body = { data: record.view, unchanged: true };
      return;
    }
    await addVersion(ctx, slug, draft);
    // The write's answer, saying that it changed something (a 202 pending answer stays as it is).
    if (ctx.status === 200 && typeof ctx.body === 'string') ctx.body = `${ctx.body.slice(0, -1)},"unchanged":false}`;
  });
};
