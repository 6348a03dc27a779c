import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

/** One mail as the relay received it: its envelope recipients, the raw message and its decoded subject and text. */
export interface CapturedMail {
  recipients: string[];
  raw: string;
  messageId: string;
  subject: string;
  text: string;
}

/**
 * A real SMTP server for the tests (the `smtp-server` package), on a port of its own: it keeps
 * every mail it accepts; `down()` closes it (the relay refuses connections), `up()` opens it again
 * on the same port.
 */
export class SmtpCapture {
  readonly mails: CapturedMail[] = [];
  private server?: SMTPServer;
  private port = 0;

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          this.mails.push(
            parsed(
              Buffer.concat(chunks).toString('utf8'),
              session.envelope.rcptTo.map((rcpt) => rcpt.address),
            ),
          );
          callback();
        });
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.server.address() as AddressInfo).port;
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function parsed(raw: string, recipients: string[]): CapturedMail {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1]?.trim() ?? '';
  const body = raw.slice(split + 4);
  const encoding = header('Content-Transfer-Encoding').toLowerCase();
  const text = encoding === 'base64' ? Buffer.from(body, 'base64').toString('utf8') : encoding === 'quoted-printable' ? quotedPrintable(body) : body;
  return { recipients, raw, messageId: header('Message-ID'), subject: encodedWords(header('Subject')), text };
}

function quotedPrintable(text: string): string {
  const escaped = text.replace(/%/g, '%25').replace(/=\r?\n/g, '');
  return decodeURIComponent(escaped.replace(/=([0-9A-F]{2})/gi, (_, hex: string) => `%${hex}`));
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`), as nodemailer writes a subject with umlauts. */
function encodedWords(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_, kind: string, data: string) =>
      kind.toUpperCase() === 'B' ? Buffer.from(data, 'base64').toString('utf8') : quotedPrintable(data.replace(/_/g, ' ')),
    );
}
