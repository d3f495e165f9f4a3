import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { Logger } from 'pino';
import { errorHandler } from './middleware/errorHandler';
import { requestContext } from './middleware/requestContext';
import type { AppContext, AppState } from './types';
import { metricsEndpoint } from './metricsEndpoint';
import type { Metrics } from '../observability/metrics';

/**
 * GET /metrics on a port of its own (METRICS_PORT): scrapes stay off the API's port, which a
 * firewall can then expose without them. Anything else there is a 404 in the error envelope.
 */
export const startMetricsServer = async ({
  metrics,
  token,
  host,
  port,
  logger,
}: {
  metrics: Metrics;
  token?: string;
  host: string;
  port: number;
  logger: Logger;
}): Promise<{ port: number; close(): Promise<void> }> => {
  const app = new Koa<AppState, AppContext>();
  app.use(requestContext(logger));
  app.use(errorHandler());
  app.use(metricsEndpoint(metrics, token));
  const server = createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
};
