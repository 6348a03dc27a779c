import { createTransport } from 'nodemailer';

/** One mail as the relay gets it: its recipients only in the envelope (Bcc), never in a header another reads. */
export interface OutgoingMail {
  messageId: string;
  recipients: string[];
  subject: string;
  text: string;
}

export interface MailTransport {
  /** Resolves once the relay accepted the mail; rejects when it did not. */
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/**
 * The configured relay through nodemailer (SMTP_URL: `smtp://…` with STARTTLS, `smtps://…` TLS from
 * the start). `requireTls` (production, docs/operations.md "Encryption in transit"): an `smtp://`
 * relay that does not offer STARTTLS is refused rather than sent the mail in the clear; elsewhere
 * STARTTLS where offered. Timeouts of seconds, not nodemailer's minutes: a relay that does not
 * answer is down, and the mail is tried again later.
 */
export function smtpTransport(smtpUrl: string, from: string, options: { requireTls?: boolean } = {}): MailTransport {
  const transport = createTransport({
    url: smtpUrl,
    requireTLS: options.requireTls ?? false,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return {
    async send(mail) {
      await transport.sendMail({
        from,
        bcc: mail.recipients,
        subject: mail.subject,
        text: mail.text,
        messageId: mail.messageId,
        // RFC 3834: no auto-replies to a notification.
        headers: { 'Auto-Submitted': 'auto-generated' },
      });
    },
    close: () => transport.close(),
  };
}

/** The domain of MAIL_FROM's address, for the Message-IDs (RFC 5322 3.6.4: unique to the sender's domain). */
export function domainOf(from: string): string {
  return /@([^\s<>@]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
}
