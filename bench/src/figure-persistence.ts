import { randomUUID } from 'node:crypto';
import { workOf } from '@bedrequest/messaging';
import { join } from 'node:path';
import { Pool } from 'pg';
import { AdmissionBundleSubmittedV1, createEnvelope, type ClinicRecord } from '@bedrequest/contracts';
import { admissionRequestSummary, fhirSystems, validateAdmissionRequestBundle } from '@bedrequest/fhir-model';
import { openDataKeyring } from '@bedrequest/crypto';
import { openServiceDatabase } from '@bedrequest/persistence';
import { PrismaClient } from '../../apps/intake/src/generated/prisma/client';
import { SealedFields } from '../../apps/intake/src/persistence/sealed-fields';
import { pgRunner, prismaRunner, type SqlRunner } from '../../apps/intake/src/persistence/sql-runner';
import { AdmissionRequestRepository } from '../../apps/intake/src/requests/admission-request.repository';
import { intakeCommands, type IntakeCommand } from '../../apps/intake/src/requests/intake-commands';
import { IntakeService } from '../../apps/intake/src/requests/intake.service';
import { root } from '@bedrequest/stack';
import { bundleFactory, FHIR_BASE, REFERRER_IK } from './bundles';
import { summarize } from './load';

const submitter = { partyId: 'bench-referrer', ikNumbers: [REFERRER_IK], fhirBase: FHIR_BASE };

/** Intake's use case over `runner`, with the performers registered as clinics that offer 2300. */
function intakeOver(runner: SqlRunner, schema: string, fields: SealedFields, profileBase: string, performerIks: string[]): IntakeService {
  const clinics = new Map(
    performerIks.map((ik): [string, ClinicRecord] => [
      ik,
      { ik, name: ik, departments: [{ code: '2300', specialty: 'orthopedics', display: 'orthopaedics' }] },
    ]),
  );
  return new IntakeService(new AdmissionRequestRepository(runner, schema, fields), { lookup: async () => clinics }, fhirSystems(profileBase));
}

/** Intake's sealed fields in `schema` under its development KEK, as the service runs outside production. */
async function sealedFieldsIn(pool: Pool, schema: string): Promise<SealedFields> {
  const sql = { query: async <Row>(text: string, values: unknown[]) => (await pool.query(text, values)).rows as Row[] };
  const { keyring } = await openDataKeyring({ NODE_ENV: 'development' }, { sql, schema });
  return new SealedFields(keyring);
}

/** `count` new requests as the gateway sends them (validated, with what it read), in batches of `batchSize`. */
function batchesOf(service: IntakeService, options: { count: number; batchSize: number; performerIks: string[]; profileBase: string }): IntakeCommand[][] {
  const bundles = bundleFactory(options.performerIks);
  const commands = Array.from({ length: options.count }, () => {
    const bundle = JSON.parse(bundles.next().body) as Record<string, unknown>;
    const validation = validateAdmissionRequestBundle(bundle, { profileBase: options.profileBase });
    if (!validation.ok) throw new Error('invalid bundle');
    const envelope = createEnvelope(
      AdmissionBundleSubmittedV1,
      { submitter, receivedAt: new Date().toISOString(), bundle, request: admissionRequestSummary(validation.bundle) },
      { correlationId: 'bench', id: randomUUID() },
    );
    return workOf(intakeCommands, { envelope, definition: AdmissionBundleSubmittedV1 });
  });
  const batches: IntakeCommand[][] = [];
  for (let index = 0; index < commands.length; index += options.batchSize) batches.push(commands.slice(index, index + options.batchSize));
  return batches;
}

async function throughput(service: IntakeService, batches: IntakeCommand[][], concurrency: number): Promise<number> {
  let next = 0;
  const count = batches.reduce((sum, batch) => sum + batch.length, 0);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < batches.length) await service.handle(batches[next++]!);
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

/**
 * Figure 5: intake's persistence of new requests (a batch: one statement that reads its state, one
 * that writes it) through Prisma (`$queryRaw`, as the service runs) against exactly the same
 * statements through a plain `pg` pool. The commands are prepared
 * beforehand, so both sides measure only the database work and what each client costs around it.
 */
export async function persistenceFigure(options: {
  databaseUrl: string;
  profileBase: string;
  performerIks: string[];
  runs: number;
  count: number;
  concurrency: number;
  batchSize: number;
}) {
  const schemas = { prisma: `bench_prisma_${Date.now().toString(36)}`, raw: `bench_raw_${Date.now().toString(36)}` };
  const open = (schema: string) =>
    openServiceDatabase(
      { databaseUrl: options.databaseUrl, schema, poolSize: options.concurrency, migrationsDir: join(root, 'apps', 'intake', 'prisma', 'migrations') },
      (adapter) => new PrismaClient({ adapter }),
    );
  const prisma = await open(schemas.prisma);
  await (await open(schemas.raw)).$disconnect();
  const pool = new Pool({ connectionString: options.databaseUrl, max: options.concurrency });
  const viaPrisma = intakeOver(prismaRunner(prisma), schemas.prisma, await sealedFieldsIn(pool, schemas.prisma), options.profileBase, options.performerIks);
  const viaPg = intakeOver(pgRunner(pool), schemas.raw, await sealedFieldsIn(pool, schemas.raw), options.profileBase, options.performerIks);
  const prismaRates: number[] = [];
  const pgRates: number[] = [];
  const batches = (service: IntakeService, count = options.count) => batchesOf(service, { ...options, count });
  try {
    // Warm-up of both paths (JIT, connection pools), not measured.
    await throughput(viaPrisma, batches(viaPrisma, 200), options.concurrency);
    await throughput(viaPg, batches(viaPg, 200), options.concurrency);
    // Interleaved, so that the machine's changing load falls on both alike.
    for (let run = 0; run < options.runs; run++) {
      prismaRates.push(await throughput(viaPrisma, batches(viaPrisma), options.concurrency));
      pgRates.push(await throughput(viaPg, batches(viaPg), options.concurrency));
    }
  } finally {
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schemas.prisma}" CASCADE; DROP SCHEMA "${schemas.raw}" CASCADE`);
    await pool.end();
  }
  return {
    bundlesPerRun: options.count,
    batchSize: options.batchSize,
    concurrency: options.concurrency,
    prismaPerSecond: summarize(prismaRates),
    rawPgPerSecond: summarize(pgRates),
    ratioPrismaToPg: summarize(prismaRates.map((rate, index) => rate / pgRates[index]!)),
    target: 0.8,
  };
}
