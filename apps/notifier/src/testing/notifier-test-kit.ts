import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { AdmissionOverdueV1, AdmissionResponseV1, createEnvelope, type SubscriptionEventType, type Topology } from '@bedrequest/contracts';
import { fhirTask } from '@bedrequest/fhir-model/testing';
import type { Broker } from '@bedrequest/messaging';
import { bundleScript, deleteBrokerTopology, testEnvironment } from '@bedrequest/testing';
import type { TestAuthority } from '@bedrequest/tokens/testing';
import { NotifierConfig } from '../config';
import type { WebhookBody } from '@bedrequest/contracts';
import type { DeliveryLogView, SubscriptionView } from '../subscriptions/subscription.service';

/**
 * Environment of a test notifier: the run's PostgreSQL and RabbitMQ, its own schema and namespace,
 * and the stand-in auth service whose keys the tokens of its subscription API are checked with.
 */
export function notifierEnvironment(options: {
  namespace: string;
  schema: string;
  authority: TestAuthority;
  settings?: Record<string, string>;
}): Record<string, string> {
  const env = testEnvironment();
  return {
    ...options.authority.env,
    NODE_ENV: 'test',
    NOTIFIER_PORT: '0',
    NOTIFIER_INTERNAL_PORT: '0',
    LOG_LEVEL: process.env.NOTIFIER_TEST_LOG_LEVEL ?? 'silent',
    DATABASE_URL: env.databaseUrl,
    AMQP_URL: env.amqpUrl,
    AMQP_NAMESPACE: options.namespace,
    NOTIFIER_DB_SCHEMA: options.schema,
    DATABASE_POOL_SIZE: '4',
    WEBHOOK_POLL_INTERVAL_MS: '50',
    WEBHOOK_TIMEOUT: '2s',
    SHUTDOWN_TIMEOUT_MS: '3000',
    ...options.settings,
  };
}

export const notifierConfig = (environment: Record<string, string>) => NotifierConfig.parse(environment);

export const MIGRATIONS_DIR = join(__dirname, '..', '..', 'prisma', 'migrations');

/** A notifier in its own process (for a real SIGKILL), reporting its addresses once it is up. */
export async function startNotifierProcess(environment: Record<string, string>): Promise<{ url: string; internalUrl: string; child: ChildProcess }> {
  const script = bundleScript(join(__dirname, 'notifier-process.ts'));
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, ...environment, NOTIFIER_TEST_MIGRATIONS_DIR: MIGRATIONS_DIR },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const { url, internalUrl } = await new Promise<{ url: string; internalUrl: string }>((resolve, reject) => {
    child.once('message', resolve);
    child.once('exit', (code) => reject(new Error(`the notifier process exited with ${code} before it was up`)));
  });
  return { url, internalUrl, child };
}

export function killed(child: ChildProcess): Promise<NodeJS.Signals | null> {
  return new Promise((resolve) => {
    child.once('exit', (_code, signal) => resolve(signal));
    child.kill('SIGKILL');
  });
}

export async function removeTopology(topology: Topology): Promise<void> {
  await deleteBrokerTopology(testEnvironment().amqpUrl, topology);
}

/** The notifier's internal subscription API, as the gateway calls it: with the referrer's access token. */
export class SubscriptionsApi {
  constructor(
    readonly baseUrl: string,
    private readonly authority: TestAuthority,
  ) {}

  async call<T = unknown>(party: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
    const response = await fetch(`${this.baseUrl}/internal/subscriptions${path}`, {
      method,
      headers: { authorization: `Bearer ${await this.authority.referrer(party)}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  async subscribe(party: string, callbackUrl: string, eventType: SubscriptionEventType = 'AdmissionResponse'): Promise<SubscriptionView> {
    const { status, body } = await this.call<SubscriptionView>(party, 'POST', '', { eventType, callbackUrl });
    if (status !== 201 && status !== 200) throw new Error(`subscribing answered ${status}`);
    return body;
  }

  async get(party: string, id: string): Promise<SubscriptionView> {
    return (await this.call<SubscriptionView>(party, 'GET', `/${id}`)).body;
  }

  async deliveries(party: string, id: string): Promise<DeliveryLogView[]> {
    return (await this.call<{ items: DeliveryLogView[] }>(party, 'GET', `/${id}/deliveries`)).body.items;
  }

  async eventsSince(party: string, id: string, since: number | string): Promise<{ status: number; body: { items: WebhookBody[] } }> {
    return this.call(party, 'GET', `/${id}/events?since=${since}`);
  }
}

/** Publishes an AdmissionResponseV1 as routing/intake would; returns the event id. */
export async function publishResponse(
  broker: Broker,
  options: { partyId: string; requestIdentifier: string; occurredAt?: Date; eventId?: string; notes?: readonly string[] },
): Promise<string> {
  const eventId = options.eventId ?? randomUUID();
  const envelope = createEnvelope(
    AdmissionResponseV1,
    {
      eventId,
      referrerPartyId: options.partyId,
      requestIdentifier: options.requestIdentifier,
      task: fhirTask({ requestIdentifier: options.requestIdentifier, businessStatus: 'accepted', ...(options.notes ? { notes: options.notes } : {}) }),
      source: 'clinic',
    },
    { correlationId: 'notifier-test', ...(options.occurredAt ? { occurredAt: options.occurredAt } : {}) },
  );
  await broker.publishEnvelope(AdmissionResponseV1.routingKey, envelope);
  return eventId;
}

/** Publishes an AdmissionOverdueV1 as intake would once the Task's deadline passed; returns the event id. */
export async function publishOverdue(
  broker: Broker,
  options: { partyId: string; requestIdentifier: string; deadline: Date; occurredAt?: Date; eventId?: string; notes?: readonly string[] },
): Promise<string> {
  const eventId = options.eventId ?? randomUUID();
  const task = fhirTask({ requestIdentifier: options.requestIdentifier, ...(options.notes ? { notes: options.notes } : {}) });
  const envelope = createEnvelope(
    AdmissionOverdueV1,
    {
      eventId,
      referrerPartyId: options.partyId,
      requestIdentifier: options.requestIdentifier,
      task: { ...task, restriction: { period: { end: options.deadline.toISOString() } } },
      deadline: options.deadline.toISOString(),
    },
    { correlationId: 'notifier-test', ...(options.occurredAt ? { occurredAt: options.occurredAt } : {}) },
  );
  await broker.publishEnvelope(AdmissionOverdueV1.routingKey, envelope);
  return eventId;
}

export const requestIdentifier = () => `https://hospital.example/fhir/ServiceRequest/${randomUUID()}`;
