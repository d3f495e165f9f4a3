import { Readable } from 'node:stream';
import Router from '@koa/router';
import { stringify } from 'csv-stringify';
import type { EventFeed } from '../../eventstore/eventFeed';
import { checkpointWorkspace, lastCheckpoint } from '../../audit/checkpoint';
import { exportLines } from '../../audit/export';
import { REPORT_COLUMNS, reportRows } from '../../audit/report';
import type { SigningKey } from '../../audit/signing';
import { SIGNATURE_ALGORITHM } from '../../audit/signing';
import { verifyLog, type VerifiableStore } from '../../audit/verify';
import { auditStreamName, type StoredCheckpoint } from '../../audit/events';
import { SLUG } from '../../presets/names';
import type { ValidationProblem } from '../../validation';
import { isProblem, parseMoment } from '../asOf';
import { ApiError, badRequest } from '../errors';
import { requireScope } from '../middleware/auth';
import { WORKSPACE_PARAMETER } from '../middleware/workspace';
import type { AppContext, AppState } from '../types';
import { workspaceStreamPrefix } from '../../events/workspaceStreams';

/** Streams whose last link a verify over HTTP keeps (src/audit/verify.ts): 16,384 of about 244 bytes. */
const VERIFY_STREAMS_KEPT = 16_384;

/**
 * The audit API, scope `audit:read`, always within the caller's workspace: verify its chains and
 * checkpoints, record a checkpoint now, a signed NDJSON export, the compliance report, and the
 * public key that checks exports. docs/audit.md is the reference.
 */
export interface AuditDeps {
  store: VerifiableStore & EventFeed;
  signingKey: SigningKey;
  clock?: () => Date;
}

export interface AuditRouteDeps {
  /** Absent: the audit routes answer 503 (an app built without the audit's stores). */
  audit?: AuditDeps;
}

const checkpointJson = (c: StoredCheckpoint) => ({
  stream: c.stream,
  revision: Number(c.revision),
  position: c.position.toString(),
  hash: c.metadata.hash ?? null,
  after: c.data.after,
  through: c.data.through,
  digest: c.data.digest,
  heads: c.data.heads,
  recorded_at: c.recordedAt.toISOString(),
});

/** from / to (RFC 3339) and the other parameters named; anything else is refused. */
const rangeQuery = (query: Record<string, string | string[] | undefined>, allowed: readonly string[]) => {
  const problems: ValidationProblem[] = [];
  const moment = (name: string) => {
    const raw = query[name];
    if (raw === undefined) return undefined;
    const at = parseMoment(raw, name);
    if (isProblem(at)) return void problems.push(at);
    return at;
  };
  const from = moment('from');
  const to = moment('to');
  if (from && to && from > to) problems.push({ path: 'to', message: 'must not be before from' });
  // workspace_id chooses the workspace (the auth middleware took it): every route takes it.
  for (const name of Object.keys(query))
    if (!['from', 'to', WORKSPACE_PARAMETER, ...allowed].includes(name))
      problems.push({ path: name, message: 'is not a parameter of this endpoint' });
  return { from, to, problems };
};

export const auditRoutes = (router: Router<AppState, AppContext>, { audit }: AuditRouteDeps) => {
  const read = requireScope('audit:read');
  const deps = () => {
    if (!audit) throw new ApiError(503, 'the audit API is not available in this process');
    return audit;
  };

  router.get('/api/v1/audit/verify', read, async (ctx) => {
    const { store } = deps();
    const { workspaceId } = ctx.state;
    // On the service's own thread: the links of fewer streams kept (about 4 MB), the rest looked up when met.
    const report = await verifyLog(store, {
      prefixes: [workspaceStreamPrefix(workspaceId), auditStreamName(workspaceId)],
      streamsKept: VERIFY_STREAMS_KEPT,
    });
    ctx.body = { data: report };
  });

  router.post('/api/v1/audit/checkpoints', read, async (ctx) => {
    const { store, clock = () => new Date() } = deps();
    const { caller, requestId } = ctx.state;
    const made = await checkpointWorkspace(store, ctx.state.workspaceId, {
      actorUserId: caller.userId,
      keyId: caller.keyId,
      requestId,
      now: clock(),
    });
    const checkpoint = made ?? (await lastCheckpoint(store, ctx.state.workspaceId));
    ctx.status = made ? 201 : 200;
    ctx.body = { data: checkpoint && checkpointJson(checkpoint) };
  });

  router.get('/api/v1/audit/public-key', read, (ctx) => {
    const { signingKey } = deps();
    ctx.body = { data: { algorithm: SIGNATURE_ALGORITHM, key_id: signingKey.keyId, public_key_pem: signingKey.publicKeyPem } };
  });

  router.get('/api/v1/audit/export', read, async (ctx) => {
    const { store, signingKey } = deps();
    const { from, to, problems } = rangeQuery(ctx.query, ['stream']);
    const stream = ctx.query.stream;
    if (stream !== undefined && (typeof stream !== 'string' || !SLUG.test(stream)))
      problems.push({ path: 'stream', message: `must be the slug of a preset, got ${JSON.stringify(stream)}` });
    if (problems.length > 0) throw badRequest('invalid query parameters', problems);
    ctx.set('Content-Type', 'application/x-ndjson; charset=utf-8');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = Readable.from(
      exportLines(store, { workspaceId: ctx.state.workspaceId, from, to, slug: stream as string | undefined }, signingKey),
    );
  });

  router.get('/api/v1/audit/report', read, async (ctx) => {
    const { store } = deps();
    const { from, to, problems } = rangeQuery(ctx.query, ['format']);
    const format = ctx.query.format ?? 'json';
    if (format !== 'json' && format !== 'csv')
      problems.push({ path: 'format', message: `must be one of csv, json, got ${JSON.stringify(format)}` });
    if (problems.length > 0) throw badRequest('invalid query parameters', problems);
    const rows = reportRows(store, { workspaceId: ctx.state.workspaceId, from, to });
    ctx.set('Cache-Control', 'no-store');
    if (format === 'csv') {
      ctx.set('Content-Type', 'text/csv; charset=utf-8');
      ctx.set('Content-Disposition', 'attachment; filename="presets-audit-report.csv"');
      ctx.body = Readable.from(rows).pipe(stringify({ header: true, columns: [...REPORT_COLUMNS] }));
      return;
    }
    // `{"data":[…]}`, a row at a time: a long range is never held whole.
    ctx.set('Content-Type', 'application/json; charset=utf-8');
    ctx.body = Readable.from(
      (async function* () {
        yield '{"data":[';
        let first = true;
        for await (const row of rows) {
          yield `${first ? '' : ','}${JSON.stringify(row)}`;
          first = false;
        }
        yield ']}';
      })(),
    );
  });
};
