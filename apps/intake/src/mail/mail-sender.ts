import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { PeriodicRun } from '@bedrequest/messaging';
import type { MailOutboxRepository, DueMail, MailResult } from './mail-outbox.repository';
import type { RecipientDirectory } from './mail-recipients';
import { mailTextOf } from './mail-text';
import { domainOf, type MailTransport } from './smtp-transport';

/** The longest wait between two tries: a relay down for a day is tried every hour. */
const MAX_RETRY_MS = 3600_000;
/** How long one mail may hold its row: the relay's timeouts (smtp-transport.ts) are well within it. */
const CLAIM_TIMEOUT_MS = 90_000;

export interface MailSenderOptions {
  logger: Logger;
  registry: Registry;
  from: string;
  webPublicUrl: string;
  intervalMs: number;
  reminderBeforeMs: number;
  retryBaseMs: number;
  giveUpMs: number;
  now?: () => Date;
}

/**
 * intake's mail (docs/operations.md, "E-mail"). Each run deletes old rows and, with a relay
 * configured, adds the reminders due and sends what is due, one mail per transaction: the row is
 * claimed FOR UPDATE SKIP LOCKED, its recipients asked from auth, the mail handed to the relay, and
 * the row marked sent in the same transaction, so that two replicas never send the same row. A
 * crash after the relay accepted and before the commit sends it once more, with the same
 * Message-ID (derived from the row's unique key), so a duplicate is recognisable. A relay or auth
 * failure leaves the row for a later try (RETRY_BASE doubled per try, up to an hour) and ends the
 * run; logs name the row and its Task, never an address or patient data.
 */
export class MailSender {
  private readonly outcomes;
  private readonly messageIdDomain;
  private readonly job: PeriodicRun<number>;

  constructor(
    private readonly outbox: MailOutboxRepository,
    private readonly recipients: RecipientDirectory,
    private readonly transport: MailTransport | undefined,
    private readonly options: MailSenderOptions,
  ) {
    this.messageIdDomain = domainOf(options.from);
    this.outcomes = new Counter({
      name: 'mail_outcomes_total',
      help: 'Mail rows handled by the sender, by kind and outcome (sent, no-recipients, obsolete, given-up, failed: tried again later)',
      labelNames: ['kind', 'outcome'],
      registers: [options.registry],
    });
    this.job = new PeriodicRun({
      work: () => this.sendAllDue(),
      idle: 0,
      intervalMs: options.intervalMs,
      logger: options.logger,
      failureMessage: 'sending mail failed; will retry',
    });
  }

  start(): void {
    this.job.start();
  }

  async stop(): Promise<void> {
    await this.job.stop();
    this.transport?.close();
  }

  /** One run; resolves with how many mails this process sent (never rejects). */
  run(): Promise<number> {
    return this.job.run();
  }

  private now(): Date {
    return (this.options.now ?? (() => new Date()))();
  }

  private async sendAllDue(): Promise<number> {
    await this.outbox.prune(this.now());
    if (!this.transport) return 0;
    await this.outbox.addReminders(this.now(), this.options.reminderBeforeMs);
    let sent = 0;
    // After a failure the run ends: the relay (or auth) is likely down for the next mail too.
    let failed = false;
    const sendOne = async (mail: DueMail): Promise<MailResult> => {
      const result = await this.handle(mail);
      if ('retryAt' in result) failed = true;
      else if (result.outcome === 'sent') sent += 1;
      return result;
    };
    while (!failed && (await this.outbox.withNextDue(this.now(), sendOne, { timeoutMs: CLAIM_TIMEOUT_MS })));
    return sent;
  }

  private async handle(mail: DueMail): Promise<MailResult> {
    const result = await this.attempt(mail);
    const outcome = 'retryAt' in result ? 'failed' : result.outcome;
    this.outcomes.inc({ kind: mail.kind, outcome });
    const fields = { mailId: mail.id, kind: mail.kind, taskId: mail.taskId, attempts: mail.attempts + 1 };
    if (outcome === 'given-up') this.options.logger.error(fields, 'mail given up: not sent in time');
    else this.options.logger.info({ ...fields, outcome }, 'mail handled');
    return result;
  }

  private async attempt(mail: DueMail): Promise<MailResult> {
    const now = this.now();
    if (now.getTime() - mail.createdAt.getTime() > this.options.giveUpMs) return { outcome: 'given-up' };
    // A reminder for a Task answered, marked overdue or given a new deadline meanwhile is no longer news.
    if (mail.kind === 'reminder' && !mail.stillDue) return { outcome: 'obsolete' };
    try {
      const addresses = await this.recipients.addressesOf(mail.clinicIk ? { clinicIk: mail.clinicIk } : { partyId: mail.referrerPartyId ?? '' });
      if (addresses.length === 0) return { outcome: 'no-recipients' };
      const text = mailTextOf(mail.kind, mail.taskId, this.options.webPublicUrl, { newToClinic: mail.newToClinic });
      await this.transport?.send({ ...text, recipients: addresses, messageId: this.messageIdOf(mail) });
      return { outcome: 'sent' };
    } catch (error) {
      // SMTP errors may quote an address: only their codes are logged.
      const { code, responseCode } = error as { code?: unknown; responseCode?: unknown };
      this.options.logger.warn({ mailId: mail.id, kind: mail.kind, code, responseCode, error: (error as Error).name }, 'mail not sent; will retry');
      const delay = Math.min(this.options.retryBaseMs * 2 ** mail.attempts, MAX_RETRY_MS);
      return { retryAt: new Date(now.getTime() + delay) };
    }
  }

  /** Stable per row's unique key, so a mail sent twice (a crash before its commit) has the same id both times. */
  private messageIdOf(mail: DueMail): string {
    const occasion = mail.occasion.replace(/[^A-Za-z0-9.-]/g, '');
    return `<${mail.kind}.${mail.taskId}.${occasion}@${this.messageIdDomain}>`;
  }
}
