import pino from 'pino';
import { verifyLogShare, type LogShareOptions } from '../audit/verify';
import { openEventStore } from '../backends';
import type { Config } from '../config';
import { createLogger } from '../logger';
import { serveShare, type Share } from '../threads/shares';

/** A thread of `npm run audit:verify` (src/audit/verify.ts): the chains and checkpoints of one slice of the log, on an event-store connection of its own. */
serveShare<
  LogShareOptions & { config: Config; share: Share },
  ReturnType<typeof openEventStore>,
  Awaited<ReturnType<typeof verifyLogShare>>
>(
  async ({ config }) => openEventStore(config, createLogger(config.logLevel, pino.destination({ fd: 2, sync: true })), { readOnly: true }),
  (store, options, progress) => verifyLogShare(store, options, progress),
);
