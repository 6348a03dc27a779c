import { WebhookReceiver, requestOf, type ReceivedWebhook } from '@bedrequest/testing';

export interface ArrivedWebhook {
  /** `webhook-id` header. */
  headerId: string;
  /** `id` of the body: the event id. */
  id: string;
  sequence: number;
  requestIdentifier: string;
  businessStatus: string | undefined;
  verified: boolean;
  receivedAt: number;
}

/**
 * The referrer's webhook endpoint for the outage scenario: the shared WebhookReceiver, which keeps
 * its port below the ephemeral range while it is down (every attempt meets a refused connection)
 * and comes back on it. Verifies each signature like a referrer would, answers 204.
 */
export class OutageReceiver {
  private readonly receiver = new WebhookReceiver();

  /** A receiver that has its port but is down until `up`. */
  static async onFreeLowPort(): Promise<OutageReceiver> {
    const outage = new OutageReceiver();
    await outage.receiver.start();
    await outage.receiver.stop();
    return outage;
  }

  get url(): string {
    return this.receiver.url;
  }

  set secret(secret: string) {
    this.receiver.secret = secret;
  }

  get arrived(): ArrivedWebhook[] {
    return this.receiver.received.map(arrivedWebhook);
  }

  async up(): Promise<void> {
    await this.receiver.start();
  }

  async down(): Promise<void> {
    await this.receiver.stop();
  }
}

function arrivedWebhook(webhook: ReceivedWebhook): ArrivedWebhook {
  const task = webhook.body.data as { businessStatus?: { coding?: { code?: string }[] } };
  return {
    headerId: webhook.id,
    id: webhook.body.id,
    sequence: webhook.body.sequence,
    requestIdentifier: requestOf(webhook.body),
    businessStatus: task.businessStatus?.coding?.[0]?.code,
    verified: webhook.verified,
    receivedAt: webhook.receivedAt,
  };
}
