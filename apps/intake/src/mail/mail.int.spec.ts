import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { Pool } from 'pg';
import { Registry } from 'prom-client';
import type { ClinicRecord } from '@bedrequest/contracts';
import { fhirSystems } from '@bedrequest/fhir-model';
import { FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { SmtpCapture, testEnvironment, uniqueName, type CapturedMail } from '@bedrequest/testing';
import { OverdueSweep } from '../deadlines';
import { openIntakeDatabase, prismaRunner, type IntakeDatabase, type SealedFields } from '../persistence';
import { AdmissionRequestRepository, IntakeService } from '../requests';
import { admissionCommand, clinicAnswerCommand, testSealedFields } from '../testing';
import { MailOutboxRepository } from './mail-outbox.repository';
import type { RecipientDirectory } from './mail-recipients';
import { MailSender } from './mail-sender';
import { smtpTransport } from './smtp-transport';

const env = testEnvironment();
const systems = fhirSystems();
const A = '510000001';
const B = '510000003';
const referrer = { partyId: `referrer-mail-${randomUUID()}`, ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
const registry = new Map<string, ClinicRecord>([A, B].map((ik) => [ik, { ik, name: ik, departments: [{ code: '2300', specialty: 'x', display: 'x' }] }]));
const logger = pino({ level: 'silent' });
const WEB = 'https://betten.example.org';
const HOUR = 3600_000;
/** What the fixture bundle says of its patient (libs/fhir-model testing): none of it may reach a mail. */
const PATIENT_DATA = ['Musterfrau', 'Erika', '1956', 'Invalidenstraße', '1234567', 'AOK', '109519005'];

/** Auth's answer, fixed for the test: one address per clinic, one for the hospital (tools/e2e asks the real auth). */
const recipients: RecipientDirectory = {
  addressesOf: async (party) => ('clinicIk' in party ? [`aufnahme-${party.clinicIk}@reha.example`] : ['sozialdienst@klinikum.example']),
  close: async () => undefined,
};

/**
 * intake's mail (docs/operations.md, "E-mail") against the real PostgreSQL and a real SMTP server:
 * one row per event however often it is written, each sent once by two racing senders, a relay
 * outage bridged, one reminder per deadline, and no patient data in any mail.
 */
describe('mail to the people who asked for it', () => {
  const schema = uniqueName('intake_mail');
  const smtp = new SmtpCapture();
  let prisma: IntakeDatabase;
  let otherPrisma: IntakeDatabase;
  let pool: Pool;
  let fields: SealedFields;
  let service: IntakeService;
  let clock = new Date();

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 3 });
    otherPrisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 3 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    fields = await testSealedFields(prisma, schema);
    const clinics = { lookup: async (iks: readonly string[]) => new Map(iks.flatMap((ik) => (registry.has(ik) ? [[ik, registry.get(ik)!] as const] : []))) };
    service = new IntakeService(new AdmissionRequestRepository(prismaRunner(prisma), schema, fields), clinics, systems, { now: () => clock });
    await smtp.up();
  });
  afterAll(async () => {
    await smtp.down();
    await prisma.$disconnect();
    await otherPrisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  const sender = (database: IntakeDatabase) =>
    new MailSender(new MailOutboxRepository(database, schema), recipients, smtpTransport(smtp.url, 'Bettenanfrage <noreply@betten.example.org>'), {
      logger,
      registry: new Registry(),
      from: 'Bettenanfrage <noreply@betten.example.org>',
      webPublicUrl: WEB,
      intervalMs: 1000,
      reminderBeforeMs: HOUR,
      retryBaseMs: 60_000,
      giveUpMs: 72 * HOUR,
      now: () => clock,
    });
  const query = async <T>(sql: string, values: unknown[] = []) => (await pool.query(sql.replaceAll('$schema', `"${schema}"`), values)).rows as T[];
  const sendRequest = async (deadline: Date) => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const command = () => admissionCommand({ requestIdentifier: identifier, performerIks: [A, B] }, referrer, deadline.toISOString());
    expect((await service.handle([command()]))[0]).toMatchObject({ outcome: 'accepted' });
    const tasks = await query<{ id: string; clinic_ik: string }>(
      'SELECT t.id, t.clinic_ik FROM $schema.clinic_task t JOIN $schema.admission_request r ON r.id = t.request_id WHERE r.identifier = $1 ORDER BY t.clinic_ik',
      [identifier],
    );
    return { identifier, command, a: tasks[0]!.id, b: tasks[1]!.id };
  };
  const rowsOf = (...taskIds: string[]) =>
    query<{ kind: string; task_id: string; occasion: string; outcome: string | null; attempts: number }>(
      'SELECT kind, task_id::text, occasion, outcome, attempts FROM $schema.mail_outbox WHERE task_id = ANY($1::uuid[]) ORDER BY id',
      [taskIds],
    );
  const mailsOf = (...taskIds: string[]): CapturedMail[] => smtp.mails.filter((mail) => taskIds.some((id) => mail.text.includes(id)));
  const expectNoPatientData = (mails: CapturedMail[]) => {
    for (const mail of mails) {
      for (const datum of PATIENT_DATA) expect(mail.raw.includes(datum) || mail.text.includes(datum) || mail.subject.includes(datum)).toBe(false);
    }
  };
  const reference = (taskId: string) => `${taskId.slice(0, 4)}-${taskId.slice(4, 8)}`.toUpperCase();

  it('writes one mail per clinic asked, per answer and per overdue clinic, however often the event is written', async () => {
    const { command, a, b } = await sendRequest(new Date(clock.getTime() + 2 * HOUR));
    await service.handle([command()]);
    await service.handle([clinicAnswerCommand({ taskId: a, clinicIk: A, businessStatus: 'accepted' })]);
    clock = new Date(clock.getTime() + 3 * HOUR);
    const sweep = (database: IntakeDatabase) => new OverdueSweep(database, schema, fields, systems, { logger, intervalMs: 1000, now: () => clock });
    await Promise.all([sweep(prisma).run(), sweep(otherPrisma).run()]);
    await sweep(prisma).run();

    expect((await rowsOf(a, b)).map((row) => [row.kind, row.task_id === a ? 'A' : 'B', row.occasion.length > 0])).toEqual([
      ['answer-requested', 'A', true],
      ['answer-requested', 'B', true],
      ['answer', 'A', true],
      ['overdue', 'B', true],
    ]);
  });

  it('writes none for a clinic intake declined at once (not participating), neither to it nor to the hospital', async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const outsider = '510000099';
    const command = admissionCommand(
      { requestIdentifier: identifier, performerIks: [A, outsider] },
      referrer,
      new Date(clock.getTime() + 2 * HOUR).toISOString(),
    );
    expect((await service.handle([command]))[0]).toMatchObject({ outcome: 'accepted' });
    const tasks = await query<{ id: string; clinic_ik: string; status: string }>(
      'SELECT t.id, t.clinic_ik, t.status FROM $schema.clinic_task t JOIN $schema.admission_request r ON r.id = t.request_id WHERE r.identifier = $1 ORDER BY t.clinic_ik',
      [identifier],
    );
    expect(tasks.map((task) => [task.clinic_ik, task.status])).toEqual([
      [A, 'requested'],
      [outsider, 'rejected'],
    ]);

    expect((await rowsOf(...tasks.map((task) => task.id))).map((row) => [row.kind, row.task_id])).toEqual([['answer-requested', tasks[0]!.id]]);
  });

  it('sends every mail once when two senders race, to the right people, with the link and the short reference only', async () => {
    const { a, b } = await sendRequest(new Date(clock.getTime() + 2 * HOUR));
    await service.handle([clinicAnswerCommand({ taskId: b, clinicIk: B, businessStatus: 'declined', note: 'Kein Bett frei für Frau Musterfrau' })]);

    await Promise.all([sender(prisma).run(), sender(otherPrisma).run(), sender(prisma).run()]);

    const mails = mailsOf(a, b);
    expect(mails.map((mail) => [mail.recipients, mail.subject]).sort()).toEqual(
      [
        [[`aufnahme-${A}@reha.example`], `Neue Aufnahmeanfrage ${reference(a)}`],
        [[`aufnahme-${B}@reha.example`], `Neue Aufnahmeanfrage ${reference(b)}`],
        [['sozialdienst@klinikum.example'], `Antwort auf Ihre Anfrage ${reference(b)}`],
      ].sort(),
    );
    expect(mails.find((mail) => mail.recipients[0]!.startsWith('sozialdienst'))?.text).toContain(`${WEB}/workspace/requests/${b}`);
    expect(mails.find((mail) => mail.recipients[0] === `aufnahme-${A}@reha.example`)?.text).toContain(`${WEB}/inbox/tasks/${a}`);
    expect(new Set(mails.map((mail) => mail.messageId)).size).toBe(3);
    // The addresses stand in the envelope alone: no header names another recipient.
    for (const mail of mails) expect(mail.raw.split('\r\n\r\n')[0]).not.toMatch(/^(To|Cc|Bcc):/im);
    expectNoPatientData(mails);
    expect((await rowsOf(a, b)).map((row) => row.outcome)).toEqual(['sent', 'sent', 'sent']);
  });

  it('tells a clinic first asked by a later version that the request is new to it, and a clinic asked before that it changed', async () => {
    await sender(prisma).run();
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const deadline = new Date(clock.getTime() + 2 * HOUR).toISOString();
    await service.handle([admissionCommand({ requestIdentifier: identifier, performerIks: [A] }, referrer, deadline)]);
    await service.handle([admissionCommand({ requestIdentifier: identifier, performerIks: [A, B], notes: ['Mobilisation im Rollstuhl'] }, referrer, deadline)]);
    const tasks = await query<{ id: string; clinic_ik: string }>(
      'SELECT t.id, t.clinic_ik FROM $schema.clinic_task t JOIN $schema.admission_request r ON r.id = t.request_id WHERE r.identifier = $1 ORDER BY t.clinic_ik',
      [identifier],
    );
    const [a, b] = [tasks[0]!.id, tasks[1]!.id];

    await sender(prisma).run();

    expect(mailsOf(a, b).map((mail) => [mail.recipients[0], mail.subject])).toEqual([
      [`aufnahme-${A}@reha.example`, `Neue Aufnahmeanfrage ${reference(a)}`],
      [`aufnahme-${A}@reha.example`, `Aufnahmeanfrage ${reference(a)}: neue Version`],
      [`aufnahme-${B}@reha.example`, `Neue Aufnahmeanfrage ${reference(b)}`],
    ]);
  });

  it('keeps a mail while the relay is down, tries it again later, and sends it once the relay is back', async () => {
    // Whatever earlier cases left due is sent first, so that the outage meets this case's mail alone.
    await sender(prisma).run();
    await smtp.down();
    const { a, b } = await sendRequest(new Date(clock.getTime() + 2 * HOUR));

    expect(await sender(prisma).run()).toBe(0);
    const waiting = await query<{ attempts: number; next_attempt_at: Date; done_at: Date | null }>(
      'SELECT attempts, next_attempt_at, done_at FROM $schema.mail_outbox WHERE task_id = ANY($1::uuid[]) ORDER BY attempts DESC',
      [[a, b]],
    );
    expect(waiting[0]).toMatchObject({ attempts: 1, done_at: null });
    expect(waiting[0]!.next_attempt_at.getTime()).toBe(clock.getTime() + 60_000);

    await smtp.up();
    expect(await sender(prisma).run()).toBe(1);
    expect(mailsOf(a, b)).toHaveLength(1);
    clock = new Date(clock.getTime() + 61_000);
    expect(await sender(prisma).run()).toBe(1);
    await sender(prisma).run();

    expect(
      mailsOf(a, b)
        .map((mail) => mail.recipients[0])
        .sort(),
    ).toEqual([`aufnahme-${A}@reha.example`, `aufnahme-${B}@reha.example`]);
    expect((await rowsOf(a, b)).map((row) => row.outcome)).toEqual(['sent', 'sent']);
  });

  it('reminds a clinic still to answer once, an hour before its deadline, and not one that answered', async () => {
    const { a, b } = await sendRequest(new Date(clock.getTime() + 3 * HOUR));
    await service.handle([clinicAnswerCommand({ taskId: a, clinicIk: A, businessStatus: 'query', note: 'Rückfrage' })]);
    await sender(prisma).run();
    const reminders = () => mailsOf(a, b).filter((mail) => mail.subject.startsWith('Erinnerung'));
    expect(reminders()).toEqual([]);

    clock = new Date(clock.getTime() + 2.5 * HOUR);
    await Promise.all([sender(prisma).run(), sender(otherPrisma).run()]);
    await sender(prisma).run();
    clock = new Date(clock.getTime() + 0.25 * HOUR);
    await sender(prisma).run();

    expect(reminders().map((mail) => [mail.recipients, mail.subject])).toEqual([
      [[`aufnahme-${B}@reha.example`], `Erinnerung: Aufnahmeanfrage ${reference(b)} wartet auf Ihre Antwort`],
    ]);
    expect(reminders()[0]!.text).toContain(`${WEB}/inbox/tasks/${b}`);
    expectNoPatientData(reminders());
    expect((await rowsOf(a, b)).filter((row) => row.kind === 'reminder').map((row) => [row.task_id === b, row.outcome])).toEqual([[true, 'sent']]);
  });
});
