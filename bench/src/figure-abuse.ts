import { connect, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import type { Instance, Stack } from '@bedrequest/stack';
import { bundleFactory } from './bundles';
import { admin, login } from './parties';
import { percentile } from './load';

const ABUSER = { username: 'bench-abuser', password: 'bench-abuser-password', ik: '262200009', fhirBase: 'https://abusing-hospital.example/fhir' };

/**
 * Figure 9 (issue 26, point 7): another party's POST p99 while one party abuses the service at its
 * limits, against its p99 before. The gateway runs with the limits of a deployment for it (the
 * bench's own environment lifts the per-party rate) and is started again with the bench's afterwards.
 * The referrer of the other figures sends its bundles one after another, `seconds` unloaded, then
 * `seconds` while the abuser floods Task searches, posts bundles of 40,000 performers, storms the
 * login from one address and holds 200 slowloris connections.
 */
export async function abuseFigure(options: { stack: Stack; victimToken: string; performerIks: string[]; seconds: number }) {
  const gateway = options.stack.instances().find((instance) => instance.service === 'gateway')!;
  await restart(options.stack, gateway, { RATE_LIMIT_EXEMPT_ADDRESSES: '', RATE_LIMIT_PER_SECOND: '200' });
  try {
    await admin(
      options.stack.env,
      'user',
      'upsert',
      '--role',
      'referrer',
      '--username',
      ABUSER.username,
      '--password',
      ABUSER.password,
      '--ik',
      ABUSER.ik,
      '--fhir-base',
      ABUSER.fhirBase,
    );
    const abuser = await login(options.stack.gatewayUrl, ABUSER.username, ABUSER.password);
    const bundles = bundleFactory(options.performerIks);
    const url = options.stack.gatewayUrl;
    const victimPosts = async (until: number) => {
      const answers: { status: number; ms: number }[] = [];
      while (Date.now() < until) {
        const started = performance.now();
        const status = await fetch(`${url}/api/v2/fhir/Bundle`, {
          method: 'POST',
          headers: { authorization: `Bearer ${options.victimToken}`, 'content-type': 'application/fhir+json' },
          body: bundles.next().body,
          signal: AbortSignal.timeout(5_000),
        }).then(
          (response) => response.status,
          () => 0,
        );
        answers.push({ status, ms: performance.now() - started });
      }
      return answers;
    };
    const unloaded = await victimPosts(Date.now() + options.seconds * 1000);

    const until = Date.now() + options.seconds * 1000;
    const tried = { flood: 0, huge: 0, logins: 0, slow: 0 };
    const call = (path: string, init: RequestInit) =>
      fetch(`${url}${path}`, { ...init, signal: AbortSignal.timeout(10_000) }).then(
        async (response) => void (await response.arrayBuffer()),
        () => undefined,
      );
    const huge = admissionRequestBundle({
      fhirBase: ABUSER.fhirBase,
      requesterIk: ABUSER.ik,
      performerIks: options.performerIks,
      requestIdentifier: `${ABUSER.fhirBase}/ServiceRequest/${randomUUID()}`,
    }) as { entry: { resource: { resourceType: string; performer?: unknown[] } }[] };
    huge.entry.find((entry) => entry.resource.resourceType === 'ServiceRequest')!.resource.performer = Array.from({ length: 40_000 }, (_, n) => ({
      reference: `urn:uuid:00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    }));
    const hugeBody = JSON.stringify(huge);
    const loop = async (work: () => Promise<void>) => {
      while (Date.now() < until) await work();
    };
    const sockets: Socket[] = [];
    const slowloris = async () => {
      const { hostname, port, host } = new URL(url);
      for (let n = 0; n < 200; n++, tried.slow++) {
        const socket = connect(Number(port), hostname).on('error', () => undefined);
        socket.write(`POST /api/v2/fhir/Bundle HTTP/1.1\r\nHost: ${host}\r\n`);
        sockets.push(socket);
      }
      while (Date.now() < until) {
        for (const socket of sockets) if (!socket.destroyed) socket.write('X');
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    };
    const [loaded] = await Promise.all([
      victimPosts(until),
      ...Array.from({ length: 8 }, () =>
        loop(() => (tried.flood++, call('/api/v2/fhir/Task?_summary=count', { headers: { authorization: `Bearer ${abuser.token}` } }))),
      ),
      ...Array.from({ length: 2 }, () =>
        loop(
          () => (
            tried.huge++,
            call('/api/v2/fhir/Bundle', {
              method: 'POST',
              headers: { authorization: `Bearer ${abuser.token}`, 'content-type': 'application/fhir+json' },
              body: hugeBody,
            })
          ),
        ),
      ),
      ...Array.from({ length: 4 }, () =>
        loop(
          () => (
            tried.logins++,
            call('/api/v1/token/login', {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.66' },
              body: JSON.stringify({ username: `guess-${randomUUID().slice(0, 6)}`, password: 'wrong-password-guess' }),
            })
          ),
        ),
      ),
      slowloris(),
    ]);
    for (const socket of sockets) socket.destroy();
    const p99 = (answers: { ms: number }[]) =>
      percentile(
        answers.map((answer) => answer.ms),
        99,
      );
    const failed = (answers: { status: number }[]) => answers.filter((answer) => answer.status !== 202).length;
    return {
      seconds: options.seconds,
      tried,
      hugeBundleMiB: hugeBody.length / 2 ** 20,
      unloaded: { posts: unloaded.length, p99Ms: p99(unloaded), notAccepted: failed(unloaded) },
      underAbuse: { posts: loaded.length, p99Ms: p99(loaded), notAccepted: failed(loaded) },
      ratio: p99(loaded) / p99(unloaded),
    };
  } finally {
    await restart(options.stack, gateway, {});
  }
}

/** The gateway started again on its ports with `env` over the stack's. */
async function restart(stack: Stack, gateway: Instance, env: Record<string, string>): Promise<void> {
  const internalPort = Number(new URL(gateway.probeUrl).port);
  await stack.stopInstance(gateway.name);
  await stack.start(gateway.name, 'gateway', { port: gateway.port, internalPort, env });
}
