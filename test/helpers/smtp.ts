import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SmtpSink {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string;
  /** Every message accepted, parsed with mailparser, in arrival order. */
  received: ParsedMail[];
  /** The same messages as they came over the wire (`raw[i]` is `received[i]`). */
  raw: string[];
  /** SMTP connections opened so far (the pooled transport reuses them). */
  connections(): number;
  close(): Promise<void>;
}

/**
 * A real SMTP server on loopback (smtp-server, no TLS or auth): the tests' mail receiver. With
 * `rejectRecipients` every RCPT TO answers 451, a temporary failure the sender must retry.
 */
export async function startSmtpSink(options: { rejectRecipients?: boolean } = {}): Promise<SmtpSink> {
  const received: ParsedMail[] = [];
  const raw: string[] = [];
  let connections = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onConnect(_session, callback) {
      connections += 1;
      callback();
    },
    onRcptTo(_address, _session, callback) {
      if (options.rejectRecipients) {
        callback(Object.assign(new Error('mailbox temporarily unavailable'), { responseCode: 451 }));
        return;
      }
      callback();
    },
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        simpleParser(text).then(
          (mail) => {
            received.push(mail);
            raw.push(text);
            callback();
          },
          (error: Error) => callback(error),
        );
      });
    },
  });
  // smtp-server emits a client connection's socket errors on the server: a sender killed in the
  // middle of a message (the crash harness SIGKILLs workers) resets its connection, which must not
  // crash the test process. That message is simply not received.
  server.on('error', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { url: `smtp://127.0.0.1:${port}`, received, raw, connections: () => connections, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
