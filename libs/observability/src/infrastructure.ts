import { connect } from 'node:net';
import { addressesOf, describeInfrastructure, startHintOf, type Infrastructure } from '@bedrequest/config';
import { createLogger } from './logger';
import { tlsProblemOf } from './tls-check';
import { DependencyUnavailableError, GIVE_UP_AFTER_MS, seconds, waitForDependency } from './wait-for-dependency';

/** PostgreSQL, Redis or RabbitMQ did not accept a connection in time, or not one over TLS the service trusts: one line per piece. */
export class InfrastructureUnreachableError extends Error {
  override name = 'InfrastructureUnreachableError';
}

/** One connection attempt's bound: a closed port refuses at once, an unroutable host hangs. */
const CONNECT_TIMEOUT_MS = 2_000;

/**
 * Waits until PostgreSQL, Redis or RabbitMQ (those `infrastructure` lists) accept a TCP connection,
 * so that a service started on its own fails within `giveUpAfterMs` with one line per missing piece
 * instead of retrying for ever (amqplib reconnects without end, ioredis too). A connection is
 * enough: the service's own start-up opens the real sessions right after and reports what they
 * refuse. Says once, after 5 s, what it waits for; throws InfrastructureUnreachableError whose
 * message has one line per unreachable piece: its address, why, and how to start it; and one per
 * piece whose URL asks for TLS and whose certificate does not verify (tls-check.ts).
 */
export async function awaitInfrastructure(
  service: string,
  infrastructure: readonly Infrastructure[],
  options: { logLevel: string; giveUpAfterMs?: number },
): Promise<void> {
  const logger = createLogger(service, options.logLevel);
  const waits = infrastructure.map((piece) =>
    waitForDependency(() => anyAccepts(addressesOf(piece), CONNECT_TIMEOUT_MS), {
      logger,
      describe: (error) => ({ what: describeInfrastructure(piece), reason: (error as { message?: string } | undefined)?.message ?? String(error) }),
      giveUpAfterMs: options.giveUpAfterMs ?? GIVE_UP_AFTER_MS,
    }),
  );
  const results = await Promise.allSettled(waits);
  // Those that took the connection, over TLS where their URL asks for it: a server whose certificate
  // the service does not trust is one line too (tls-check.ts), at once.
  const lines = await Promise.all(
    infrastructure.map(async (piece, index) => {
      const result = results[index];
      if (result?.status !== 'rejected') return tlsProblemOf(piece, CONNECT_TIMEOUT_MS);
      if (!(result.reason instanceof DependencyUnavailableError)) throw result.reason;
      const { waiting, waitedMs } = result.reason;
      return `${describeInfrastructure(piece)} is not reachable (${waiting.reason}; waited ${seconds(waitedMs)}): ${startHintOf(piece)}`;
    }),
  );
  const problems = lines.filter((line): line is string => line !== undefined);
  if (problems.length === 0) return;
  throw new InfrastructureUnreachableError(problems.join('\n'));
}

/** Resolves once one of `addresses` (a broker cluster's nodes; mostly one) accepts a connection; else fails as the first did. */
function anyAccepts(addresses: readonly { host: string; port: number }[], timeoutMs: number): Promise<void> {
  return Promise.any(addresses.map((address) => tcpConnect(address, timeoutMs))).catch((error: AggregateError) => {
    throw error.errors[0];
  });
}

/** Resolves once `host:port` accepts a connection (closed again at once). */
function tcpConnect(address: { host: string; port: number }, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(address);
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
    socket.once('connect', () => {
      socket.destroy();
      resolve();
    });
    socket.once('error', reject);
  });
}
