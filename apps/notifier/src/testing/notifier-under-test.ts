import { randomUUID } from 'node:crypto';
import { declareTopology, messageCatalog, type Topology } from '@bedrequest/contracts';
import { Broker } from '@bedrequest/messaging';
import { silentLogger, uniqueName, type WebhookReceiver } from '@bedrequest/testing';
import { startNotifier, type NotifierOverrides, type RunningNotifier } from '../start';
import { SubscriptionsApi, notifierConfig, notifierEnvironment, publishResponse, removeTopology } from './notifier-test-kit';

/**
 * A notifier of the describe block's own (its namespace and schema, `settings` over the test
 * defaults) with a broker client that publishes AdmissionResponses to it: started before the
 * block's tests, stopped after them.
 */
export function notifierUnderTest(settings: Record<string, string>, overrides: NotifierOverrides = {}): NotifierUnderTest {
  const notifier = new NotifierUnderTest(settings, overrides);
  beforeAll(() => notifier.start());
  afterAll(() => notifier.stop());
  return notifier;
}

export class NotifierUnderTest {
  private readonly topology: Topology;
  private readonly environment: Record<string, string>;
  private readonly client: Broker;
  private running?: RunningNotifier;

  constructor(
    settings: Record<string, string>,
    private readonly overrides: NotifierOverrides,
  ) {
    const namespace = uniqueName('notifier');
    this.topology = declareTopology(namespace);
    this.environment = notifierEnvironment({ namespace, schema: uniqueName('notifier'), settings });
    this.client = new Broker({ url: this.environment.AMQP_URL!, topology: this.topology, catalog: messageCatalog, logger: silentLogger(), prefetch: 8, deliveryLimit: 5 });
  }

  get url(): string {
    if (!this.running) throw new Error('the notifier under test is not running');
    return this.running.url;
  }

  get api(): SubscriptionsApi {
    return new SubscriptionsApi(this.url);
  }

  async start(): Promise<void> {
    this.running = await startNotifier(notifierConfig(this.environment), this.overrides);
    await this.client.start();
  }

  async stop(): Promise<void> {
    await this.client.stop();
    await this.running?.stop();
    await removeTopology(this.topology);
  }

  /** Publishes an AdmissionResponse as routing/intake would; resolves with the event id. */
  publish(event: Parameters<typeof publishResponse>[1]): Promise<string> {
    return publishResponse(this.client, event);
  }
}

/** A new referring party with an AdmissionResponse subscription to `callbackUrl`; `receiver` verifies with its secret. */
export async function subscribedParty(api: SubscriptionsApi, receiver: WebhookReceiver, callbackUrl = receiver.url) {
  const party = `referrer-${randomUUID()}`;
  const subscription = await api.subscribe(party, callbackUrl);
  receiver.secret = subscription.secret;
  return { party, subscription };
}
