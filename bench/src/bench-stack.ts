// The stack the benchmark measures: started from dist against the local PostgreSQL, Redis and
// RabbitMQ in its own database `bedrequest_bench`, broker namespace and Redis prefix, with the
// bench's clinics and its one referrer (subscribed to its AdmissionResponses), and removed again.
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { declareTopology } from '@bedrequest/contracts';
import { deleteBrokerTopology, type WebhookReceiver } from '@bedrequest/testing';
import { buildServices, launchStack, type Stack } from '@bedrequest/stack';
import { FHIR_BASE, REFERRER_IK } from './bundles';
import { admin, login } from './parties';

export const CLINIC_ACCEPTING = '512200001';
export const CLINIC_ACCEPTING_2 = '512200002';
export const CLINIC_DECLINING = '512200003';
export const PROFILE_BASE = 'https://bedrequest.example.org';

/** The broker of the machine (AMQP_URL, else the local RabbitMQ's default). */
export function amqpUrl(): string {
  return process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
}

export interface BenchStack {
  stack: Stack;
  /** The bench's own database, bedrequest_bench, on the server of DATABASE_URL. */
  databaseUrl: string;
  /** Broker namespace of this run. */
  namespace: string;
  /** DATABASE_URL as given (or the local default): the server the bench database is made on. */
  baseUrl: string;
}

async function recreateDatabase(url: string, name: string, drop = false) {
  const adminUrl = new URL(url);
  adminUrl.pathname = '/postgres';
  const client = new Client({ connectionString: adminUrl.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  if (!drop) await client.query(`CREATE DATABASE "${name}"`);
  await client.end();
}

/** Builds the services and starts them as processes on a new bench database; `profileDir`: each writes a CPU profile there on exit. */
export async function startBenchStack(profileDir: string | undefined): Promise<BenchStack> {
  const baseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/bedrequest';
  const databaseUrl = new URL(baseUrl);
  databaseUrl.pathname = '/bedrequest_bench';
  const runId = randomBytes(3).toString('hex');
  const namespace = `bench-${runId}`;
  const env = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl.toString(),
    AMQP_NAMESPACE: namespace,
    REDIS_KEY_PREFIX: `bench:${runId}:`,
    // The service's capacity, not the per-party limits a deployment sets (figure 9 puts those back):
    // an open loop past capacity holds more than 128 requests of the one bench party at once.
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BYTES_PER_SECOND: '1000000000',
    RATE_LIMIT_CONCURRENT_PER_PARTY: '1000000',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // The webhook figures send to one subscription and receiver: the machinery's throughput, not
    // the caps that keep one party from taking every slot (docs/webhooks.md, "Fair delivery").
    WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION: '1000000',
    WEBHOOK_MAX_IN_FLIGHT_PER_ORIGIN: '1000000',
  };
  console.log(`[bench] building, then starting the stack (namespace ${namespace}, database bedrequest_bench)`);
  buildServices();
  await recreateDatabase(baseUrl, 'bedrequest_bench');
  const stack = await launchStack({
    mode: 'processes',
    isolate: false,
    env,
    ...(profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}),
  });
  return { stack, databaseUrl: databaseUrl.toString(), namespace, baseUrl };
}

/**
 * The bench's clinics (two that take orthopaedics, one that does not) and its referrer, made with
 * the admin command line; the referrer logged in and subscribed to its AdmissionResponses at
 * `receiver`, which is started here.
 */
export async function enrolParties(stack: Stack, receiver: WebhookReceiver): Promise<{ token: string; partyId: string }> {
  const stackEnv = stack.env;
  await admin(stackEnv, 'clinic', 'upsert', '--ik', CLINIC_ACCEPTING, '--name', 'Bench Rehaklinik A', '--departments', '2300');
  await admin(stackEnv, 'clinic', 'upsert', '--ik', CLINIC_ACCEPTING_2, '--name', 'Bench Rehaklinik B', '--departments', '2300');
  await admin(stackEnv, 'clinic', 'upsert', '--ik', CLINIC_DECLINING, '--name', 'Bench Rehaklinik C (no orthopaedics)', '--departments', '0300');
  await admin(
    stackEnv,
    'user',
    'upsert',
    '--role',
    'referrer',
    '--username',
    'bench-referrer',
    '--password',
    'bench-referrer-password',
    '--ik',
    REFERRER_IK,
    '--fhir-base',
    FHIR_BASE,
  );
  const referrer = await login(stack.gatewayUrl, 'bench-referrer', 'bench-referrer-password');
  const callbackUrl = await receiver.start();
  const subscription = await fetch(`${stack.gatewayUrl}/api/v1/subscriptions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${referrer.token}` },
    body: JSON.stringify({ eventType: 'AdmissionResponse', callbackUrl }),
  });
  if (!subscription.ok) console.warn(`[bench] subscription failed: ${subscription.status}`);
  return referrer;
}

/** Stops the stack and removes its database and broker objects; failures to remove are ignored. */
export async function removeBenchStack({ stack, baseUrl, namespace }: BenchStack): Promise<void> {
  await stack.stop();
  await recreateDatabase(baseUrl, 'bedrequest_bench', true).catch(() => undefined);
  await deleteBrokerTopology(amqpUrl(), declareTopology(namespace)).catch(() => undefined);
}
