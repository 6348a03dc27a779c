import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Pool } from 'pg';
import { RequestDispatchedV1 } from '@bedrequest/contracts';
import { fhirSystems, validateAdmissionRequestBundle } from '@bedrequest/fhir-model';
import { outboxRecord } from '@bedrequest/messaging';
import { openServiceDatabase } from '@bedrequest/persistence';
import { PrismaClient } from '../../apps/intake/src/generated/prisma/client';
import { AdmissionRequestRepository } from '../../apps/intake/src/requests/admission-request.repository';
import { canonicalHash } from '../../apps/intake/src/requests/canonical-json';
import { IntakeService } from '../../apps/intake/src/requests/intake.service';
import { decide } from '../../apps/intake/src/requests/request-state-machine';
import { root } from '../../tools/e2e/process-stack';
import { bundleFactory, FHIR_BASE, REFERRER_IK } from './bundles';
import { summarize } from './load';

type Submit = (bundle: Record<string, unknown>) => Promise<unknown>;

const submitter = { partyId: 'bench-referrer', ikNumbers: [REFERRER_IK], fhirBase: FHIR_BASE };

/**
 * The same statements as the Prisma path of a new request (IntakeService.submitAdmissionRequest
 * with AdmissionRequestRepository), written with raw `pg`: inbox insert, advisory lock, look-up,
 * request, version, one Task per performer, outbox, verdict, in one transaction.
 */
function rawPgSubmit(pool: Pool, schema: string, profileBase: string): Submit {
  const s = `"${schema}"`;
  return async (input) => {
    const messageId = randomUUID();
    const validation = validateAdmissionRequestBundle(input, { profileBase });
    if (!validation.ok) throw new Error('invalid bundle');
    const bundle = validation.bundle;
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO ${s}.inbox_message (message_id, message_type) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [messageId, 'admission.bundle.submitted.v1']);
      await client.query('SELECT 1 AS locked FROM pg_advisory_xact_lock(hashtext($1))', [`request:${bundle.requestIdentifier}`]);
      const existing = await client.query(`SELECT id FROM ${s}.admission_request WHERE identifier = $1`, [bundle.requestIdentifier]);
      if (existing.rowCount) throw new Error('the benchmark creates new requests only');
      const hash = canonicalHash(input);
      const decision = decide(undefined, { hash, status: bundle.status, intent: bundle.intent, orderDetail: bundle.orderDetail, performerIks: bundle.performerIks, patient: bundle.patient });
      if (decision.kind !== 'apply') throw new Error('unexpected decision');
      const requestId = randomUUID();
      const now = new Date();
      await client.query(
        `INSERT INTO ${s}.admission_request (id, identifier, referrer_party_id, referrer_ik, status, intent, selected_clinic_ik, current_version, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, NULL, 1, $7, $7)`,
        [requestId, bundle.requestIdentifier, submitter.partyId, bundle.requesterIk, decision.next.status, decision.next.intent, now],
      );
      await client.query(`INSERT INTO ${s}.request_version (request_id, version, bundle, canonical_hash, message_id, received_at) VALUES ($1, 1, $2, $3, $4, $5)`, [requestId, input, hash, messageId, now]);
      const tasks = decision.tasks.map((task) => ({ taskId: randomUUID(), clinicIk: task.clinicIk, action: task.action, status: task.status }));
      const rows = tasks.map((_, index) => `($${index * 4 + 1}, $${index * 4 + 2}, $${index * 4 + 3}, $${index * 4 + 4}, 1, now(), now())`);
      await client.query(
        `INSERT INTO ${s}.clinic_task (id, request_id, clinic_ik, status, sent_version, authored_on, last_modified) VALUES ${rows.join(', ')}`,
        tasks.flatMap((task) => [task.taskId, requestId, task.clinicIk, task.status]),
      );
      const record = outboxRecord(
        RequestDispatchedV1,
        { requestIdentifier: bundle.requestIdentifier, referrerPartyId: submitter.partyId, version: 1, change: 'created', departmentCode: bundle.departmentCode, tasks: tasks.map(({ taskId, clinicIk, action }) => ({ taskId, clinicIk, action })) },
        { correlationId: 'bench' },
      );
      await client.query(`INSERT INTO ${s}.outbox_message (routing_key, envelope) VALUES ($1, $2)`, [record.routingKey, record.envelope]);
      await client.query(`UPDATE ${s}.inbox_message SET verdict = $2 WHERE message_id = $1`, [messageId, { status: 202, outcome: 'accepted', issues: [] }]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  };
}

async function throughput(submit: Submit, options: { count: number; concurrency: number; performerIks: string[] }): Promise<number> {
  const bundles = bundleFactory(options.performerIks);
  const inputs = Array.from({ length: options.count }, () => JSON.parse(bundles.next().body) as Record<string, unknown>);
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < inputs.length) await submit(inputs[next++]!);
    }),
  );
  return options.count / ((performance.now() - started) / 1000);
}

/** Figure 5: intake's persistence of a new request through Prisma against the same statements through raw pg. */
export async function persistenceFigure(options: { databaseUrl: string; profileBase: string; performerIks: string[]; runs: number; count: number; concurrency: number }) {
  const schemas = { prisma: `bench_prisma_${Date.now().toString(36)}`, raw: `bench_raw_${Date.now().toString(36)}` };
  const open = (schema: string) =>
    openServiceDatabase({ databaseUrl: options.databaseUrl, schema, poolSize: options.concurrency, migrationsDir: join(root, 'apps', 'intake', 'prisma', 'migrations') }, (adapter) => new PrismaClient({ adapter }));
  const prisma = await open(schemas.prisma);
  await (await open(schemas.raw)).$disconnect();
  const pool = new Pool({ connectionString: options.databaseUrl, max: options.concurrency });
  const service = new IntakeService(new AdmissionRequestRepository(prisma), fhirSystems(options.profileBase));
  const viaPrisma: Submit = (bundle) => service.submitAdmissionRequest({ submitter, receivedAt: new Date().toISOString(), bundle }, { messageId: randomUUID(), messageType: 'admission.bundle.submitted.v1', correlationId: 'bench' });
  const viaPg = rawPgSubmit(pool, schemas.raw, options.profileBase);
  const prismaRates: number[] = [];
  const pgRates: number[] = [];
  try {
    // Warm-up of both paths (JIT, connection pools), not measured.
    await throughput(viaPrisma, { ...options, count: 200 });
    await throughput(viaPg, { ...options, count: 200 });
    for (let run = 0; run < options.runs; run++) {
      prismaRates.push(await throughput(viaPrisma, options));
      pgRates.push(await throughput(viaPg, options));
    }
  } finally {
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schemas.prisma}" CASCADE; DROP SCHEMA "${schemas.raw}" CASCADE`);
    await pool.end();
  }
  return {
    bundlesPerRun: options.count,
    concurrency: options.concurrency,
    prismaPerSecond: summarize(prismaRates),
    rawPgPerSecond: summarize(pgRates),
    ratioPrismaToPg: summarize(prismaRates.map((rate, index) => rate / pgRates[index]!)),
    target: 0.8,
  };
}
