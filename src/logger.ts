import pino, { type Logger } from 'pino';
import type { Config } from './config';

/** Structured JSON logs on stdout. Credentials are redacted wherever a caller might put them. */
export const createLogger = (level: Config['logLevel'], destination?: pino.DestinationStream): Logger =>
  pino(
    {
      level,
      base: { service: 'presets' },
      // `secret`: a webhook's signing secret, wherever an object holding one might be logged.
      redact: {
        paths: [
          'authorization',
          '*.authorization',
          'headers.authorization',
          '*.headers.authorization',
          'key',
          '*.key',
          'secret',
          '*.secret',
          'secrets',
          '*.secrets',
        ],
        censor: '[redacted]',
      },
    },
    destination,
  );
