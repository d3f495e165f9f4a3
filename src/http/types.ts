import type { DefaultContext } from 'koa';
import type { Logger } from 'pino';
import type { Caller } from '../auth/apiKeys';

/** What the middleware puts on `ctx.state` for the handlers below it. */
export interface AppState {
  requestId: string;
  log: Logger;
  /** The authenticated caller (set by the auth middleware). */
  caller: Caller;
  /** The workspace the request acts in (middleware/workspace.ts): one of the caller's. */
  workspaceId: string;
  /** The parsed JSON body (set by the JSON body middleware). */
  body: unknown;
  /** What answered a request no router matched (the console, /metrics): its metrics label. */
  servedBy?: string;
}

export type AppContext = DefaultContext;
