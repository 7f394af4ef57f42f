import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * Paths redacted from every log line. Request bodies are never logged; these catch the places
 * where a secret or PII could still reach a log object.
 */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["idempotency-key"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'authorization',
  'password',
  'apiKey',
  'secret',
  'cardNumber',
  'cvc',
  'pii',
  '*.password',
  '*.apiKey',
  '*.secret',
  '*.cardNumber',
  '*.cvc',
  '*.pii',
  '*.email',
  '*.firstName',
  '*.middleName',
  '*.lastName',
  '*.dateOfBirth',
  '*.phoneNumber',
  '*.address',
  '*.accountNumber',
];

export function createLogger(options: { level: string; stream?: DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      redact: { paths: redactedPaths, censor: '[REDACTED]' },
      base: { service: 'paysail' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.stream,
  );
}
