import pino, { type Logger } from 'pino';
import type { Config } from './config';

/** Structured JSON logs on stdout. Credentials are redacted wherever a caller might put them. */
export const createLogger = (level: Config['logLevel'], destination?: pino.DestinationStream): Logger =>
  pino(
    {
      level,
      base: { service: 'presets' },
      redact: { paths: ['authorization', '*.authorization', 'headers.authorization', '*.headers.authorization', 'key', '*.key'], censor: '[redacted]' },
    },
    destination,
  );
