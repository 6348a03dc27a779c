import { randomUUID } from 'node:crypto';
import { RequestErasedV1, createEnvelope, declareTopology, messageCatalog, type Topology } from '@bedrequest/contracts';
import { Broker, declareBrokerTopology } from '@bedrequest/messaging';
import { silentLogger, testEnvironment, uniqueName, type WebhookReceiver } from '@bedrequest/testing';
import { TestAuthority } from '@bedrequest/tokens/testing';
import { startNotifier, type NotifierOverrides, type RunningNotifier } from '../start';
import { SubscriptionsApi, notifierConfig, notifierEnvironment, publishOverdue, publishResponse, removeTopology } from './notifier-test-kit';

/**
 * A notifier of the describe block's own (its namespace and schema, `settings` over the test
 * defaults, a stand-in auth service for the tokens of its subscription API) with a broker client
 * that publishes AdmissionResponses to it: started before the block's tests, stopped after them.
 */
export function notifierUnderTest(settings: Record<string, string>, overrides: NotifierOverrides = {}): NotifierUnderTest {
  const notifier = new NotifierUnderTest(settings, overrides);
  beforeAll(() => notifier.start());
  afterAll(() => notifier.stop());
  return notifier;
}

export class NotifierUnderTest {
  private readonly namespace = uniqueName('notifier');
  private readonly topology: Topology;
  private readonly client: Broker;
  private running?: { notifier: RunningNotifier; authority: TestAuthority };

  constructor(
    private readonly settings: Record<string, string>,
    private readonly overrides: NotifierOverrides,
  ) {
    this.topology = declareTopology(this.namespace);
    this.client = new Broker({
      url: testEnvironment().amqpUrl,
      topology: this.topology,
      catalog: messageCatalog,
      logger: silentLogger(),
      prefetch: 8,
      deliveryLimit: 5,
    });
  }

  get url(): string {
    return this.started().notifier.url;
  }

  /** Its health probes and metrics (NOTIFIER_INTERNAL_PORT). */
  get internalUrl(): string {
    return this.started().notifier.internalUrl;
  }

  get api(): SubscriptionsApi {
    return new SubscriptionsApi(this.url, this.started().authority);
  }

  async start(): Promise<void> {
    const authority = await TestAuthority.start();
    const environment = notifierEnvironment({ namespace: this.namespace, schema: uniqueName('notifier'), authority, settings: this.settings });
    // Provisioning's step, as the local administrator: the notifier declares no topology.
    await declareBrokerTopology(testEnvironment().amqpUrl, this.topology, 5);
    this.running = { notifier: await startNotifier(notifierConfig(environment), this.overrides), authority };
    await this.client.start();
  }

  async stop(): Promise<void> {
    await this.client.stop();
    await this.running?.notifier.stop();
    await this.running?.authority.stop();
    await removeTopology(this.topology);
  }

  /** Publishes an AdmissionResponse as routing/intake would; resolves with the event id. */
  publish(event: Parameters<typeof publishResponse>[1]): Promise<string> {
    return publishResponse(this.client, event);
  }

  /** Publishes an AdmissionOverdue as intake would; resolves with the event id. */
  publishOverdue(event: Parameters<typeof publishOverdue>[1]): Promise<string> {
    return publishOverdue(this.client, event);
  }

  /** Publishes intake's `request.erased.v1` for the party's request, `times` times (a redelivery). */
  async publishErasure(erasure: { partyId: string; requestIdentifier: string; erasedAt: Date }, times = 1): Promise<void> {
    const envelope = createEnvelope(
      RequestErasedV1,
      {
        requestIdentifier: erasure.requestIdentifier,
        referrerPartyId: erasure.partyId,
        reason: 'requested',
        erasedAt: erasure.erasedAt.toISOString(),
        tasks: [],
      },
      { correlationId: 'notifier-test' },
    );
    for (let n = 0; n < times; n += 1) await this.client.publishEnvelope(RequestErasedV1.routingKey, envelope);
  }

  private started(): { notifier: RunningNotifier; authority: TestAuthority } {
    if (!this.running) throw new Error('the notifier under test is not running');
    return this.running;
  }
}

/** A new referring party with an AdmissionResponse subscription to `callbackUrl`; `receiver` verifies with its secret. */
export async function subscribedParty(api: SubscriptionsApi, receiver: WebhookReceiver, callbackUrl = receiver.url) {
  const party = `referrer-${randomUUID()}`;
  const subscription = await api.subscribe(party, callbackUrl);
  receiver.secret = subscription.secret;
  return { party, subscription };
}
