import { randomUUID } from 'node:crypto';
import { userInfo } from 'node:os';
import { Pool } from 'pg';
import { AdmissionBundleSubmittedV1, createEnvelope, type ClinicRecord } from '@bedrequest/contracts';
import { admissionRequestSummary, fhirSystems, validateAdmissionRequestBundle } from '@bedrequest/fhir-model';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { workOf } from '@bedrequest/messaging';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { REQUEST_CLI, openIntakeServices } from './cli';
import type { IntakeCliConfig } from './config';
import { openIntakeDatabase, type IntakeDatabase } from './persistence/database';
import { prismaRunner } from './persistence/sql-runner';
import { AdmissionRequestRepository } from './requests/admission-request.repository';
import { intakeCommands } from './requests/intake-commands';
import { IntakeService } from './requests/intake.service';
import { testSealedFields } from './testing/sealed-fields';

const env = testEnvironment();
const CLINIC = '510000001';
const REFERRER = { partyId: 'referrer-admin-operator', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
const registry = new Map<string, ClinicRecord>([
  [CLINIC, { ik: CLINIC, name: CLINIC, departments: [{ code: '2300', specialty: 'orthopedics', display: 'Orthopädie' }] }],
]);

/**
 * Who an audited admin command records (`request export` here; erase, replay and discard take the
 * same operator): ADMIN_OPERATOR names the person, but anyone can set it, so the entry keeps the
 * operating-system user the command ran as beside it, and sudo's invoking user where there is one
 * (docs/operations.md, "Running the admin command line in the cluster").
 */
describe('the operator of an audited admin command', () => {
  const schema = uniqueName('intake_cli_operator');
  const login = userInfo().username;
  let prisma: IntakeDatabase;
  let pool: Pool;
  let identifier: string;

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    const lookup = async (iks: readonly string[]) => new Map(iks.flatMap((ik) => (registry.has(ik) ? [[ik, registry.get(ik)!] as const] : [])));
    const service = new IntakeService(
      new AdmissionRequestRepository(prismaRunner(prisma), schema, await testSealedFields(prisma, schema)),
      { lookup },
      fhirSystems(),
    );
    identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const bundle = admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC] }) as unknown as Record<string, unknown>;
    const validation = validateAdmissionRequestBundle(bundle, { profileBase: fhirSystems().profileBase });
    if (!validation.ok) throw new Error(JSON.stringify(validation.issues));
    const envelope = createEnvelope(
      AdmissionBundleSubmittedV1,
      { submitter: REFERRER, receivedAt: new Date().toISOString(), bundle, request: admissionRequestSummary(validation.bundle) },
      { correlationId: 'admin-operator' },
    );
    await service.handle([workOf(intakeCommands, { envelope, definition: AdmissionBundleSubmittedV1 })]);
  });

  afterAll(async () => {
    await prisma?.$disconnect();
    await pool?.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool?.end();
  });

  /** `request export` of the stored request with ADMIN_OPERATOR and SUDO_USER as given; the agent its audit entry records. */
  const exportAs = async ({ operator, sudoUser }: { operator?: string; sudoUser?: string }) => {
    const config: IntakeCliConfig = {
      NODE_ENV: 'test',
      DATABASE_URL: env.databaseUrl,
      DATABASE_POOL_SIZE: 2,
      INTAKE_DB_SCHEMA: schema,
      DATA_KEK: undefined,
      DATA_KEK_ID: undefined,
      DATA_PREVIOUS_KEKS: [],
      ADMIN_OPERATOR: operator,
    };
    const before = process.env.SUDO_USER;
    if (sudoUser === undefined) delete process.env.SUDO_USER;
    else process.env.SUDO_USER = sudoUser;
    try {
      const err: string[] = [];
      const code = await REQUEST_CLI.run(['request', 'export', '--identifier', identifier], {
        open: () => openIntakeServices(config),
        out: () => undefined,
        err: (line) => err.push(line),
      });
      expect({ code, err }).toEqual({ code: 0, err: [] });
    } finally {
      if (before === undefined) delete process.env.SUDO_USER;
      else process.env.SUDO_USER = before;
    }
    const { rows } = await pool.query<{ agent_user: string; role: string }>(
      `SELECT agent_user, resource #>> '{agent,0,role,0,text}' AS role FROM "${schema}".audit_events
        WHERE request_identifier = $1 ORDER BY recorded DESC, seq DESC LIMIT 1`,
      [identifier],
    );
    return rows[0];
  };

  it('records the login alone when ADMIN_OPERATOR is unset', async () => {
    expect(await exportAs({})).toEqual({ agent_user: login, role: 'administrator' });
  });

  it('records ADMIN_OPERATOR with the operating-system user beside it', async () => {
    expect(await exportAs({ operator: 'ops-alice' })).toEqual({ agent_user: `ops-alice (os user ${login})`, role: 'administrator' });
  });

  it('records the user who ran sudo beside the operating-system user, with and without ADMIN_OPERATOR', async () => {
    expect(await exportAs({ operator: 'ops-alice', sudoUser: 'bob' })).toEqual({
      agent_user: `ops-alice (os user ${login}, sudo by bob)`,
      role: 'administrator',
    });
    expect(await exportAs({ sudoUser: 'bob' })).toEqual({ agent_user: `${login} (sudo by bob)`, role: 'administrator' });
  });
});
