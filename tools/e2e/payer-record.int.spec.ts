// The record for the payer through the stack (docs/api.md, "The record for the payer"): a placement
// with two clinics, an answer with a note and a selection; the hospital downloads the record as PDF
// and CSV through the gateway; pdftotext reads the PDF and the CSV is parsed: every time of the
// Tasks' histories (as the clinic API gives them) stands in both. The admin command line and the
// public endpoint accept the files and refuse one changed byte; another party gets 404.
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { startE2eStack, type E2eStack } from './e2e-stack';

const A = '510000601';
const B = '510000602';

/** The quoted fields of an RFC 4180 record line as the record writes them; `#` lines skipped. */
function csvRows(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (row.length === 0 && text[i] === '#') {
      i = text.indexOf('\n', i) + 1;
      continue;
    }
    let value = '';
    i += 1;
    for (;;) {
      const quote = text.indexOf('"', i);
      value += text.slice(i, quote);
      i = quote + 1;
      if (text[i] !== '"') break;
      value += '"';
      i += 1;
    }
    row.push(value);
    if (text[i] === ',') i += 1;
    else {
      rows.push(row);
      row = [];
      i += 2;
    }
  }
  const [header, ...records] = rows;
  return records.map((cells) => Object.fromEntries(header!.map((name, index) => [name, cells[index]!])));
}

describe("the payer's record through the stack", () => {
  let stack: E2eStack;
  let hospital: string;
  let annaId: string;
  let stranger: string;
  const clinic: Record<string, string> = {};
  const task: Record<string, string> = {};
  const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
  const dir = mkdtempSync(join(tmpdir(), 'payer-record-e2e-'));

  beforeAll(async () => {
    stack = await startE2eStack();
    const hospitalParty = await stack.createParty('referrer', 'Klinikum Nord', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    // A display name unlike the login, so that the record shows the name, not the username.
    annaId = await stack.createPerson(hospitalParty, 'hospital', 'Anna Aufnahme');
    await stack.createReferrer('stranger', ['260000099'], 'https://stranger.example/fhir');
    for (const [index, ik] of [A, B].entries()) {
      await stack.registerClinic(ik, `Rehaklinik ${index + 1}`, ['2300']);
      await stack.createClinicUser(`clinic-${index + 1}`, ik);
      clinic[ik] = await stack.login(`clinic-${index + 1}`);
    }
    hospital = await stack.login('hospital');
    stranger = await stack.login('stranger');
    const sent = await stack.api('POST', '/api/v2/fhir/Bundle', {
      token: hospital,
      body: admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A, B] }),
    });
    expect(sent.status).toBe(202);
    for (const ik of [A, B]) {
      task[ik] = await waitFor(
        async () =>
          (
            await stack.api<{ entry?: { resource: { id: string } }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, {
              token: clinic[ik],
            })
          ).body.entry?.[0]?.resource.id,
        { what: `the Task of ${ik}` },
      );
    }
    const answer = await stack.api('POST', `/api/v1/clinic/tasks/${task[A]}/answer`, {
      token: clinic[A],
      body: { businessStatus: 'accepted', note: 'Bett frei ab Montag' },
    });
    expect(answer.status).toBe(200);
    const selection = admissionRequestBundle({
      requestIdentifier: identifier,
      intent: 'order',
      orderDetail: 'selected-provider',
      performerIks: [A],
      patient: 'complete',
    });
    expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: hospital, body: selection })).status).toBe(202);
    await waitFor(
      async () =>
        (await stack.api<{ status: string }>('GET', `/api/v2/fhir/Task/${task[A]}`, { token: hospital })).body.status === 'in-progress' ? true : undefined,
      { what: 'the selection' },
    );
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  /** Every time of both Tasks' histories, as the clinic API answers them. */
  const historyTimes = async () => {
    const times: string[] = [];
    for (const ik of [A, B]) {
      const { status, body } = await stack.api<{ items: { at: string }[] }>('GET', `/api/v1/clinic/tasks/${task[ik]}/history`, { token: clinic[ik] });
      expect(status).toBe(200);
      times.push(...body.items.map((entry) => entry.at));
    }
    expect(times.length).toBeGreaterThanOrEqual(4);
    return times;
  };

  const download = async (format: 'pdf' | 'csv', token = hospital) => {
    const response = await fetch(`${stack.gatewayUrl}/api/v1/referrer/records/${task[B]}?format=${format}`, {
      headers: { authorization: `Bearer ${token}`, connection: 'close' },
    });
    return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
  };

  /** `npm run admin -- …argv` (tools/admin.mjs) with the stack's environment: the intake commands do not run in-process. */
  const admin = (argv: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(__dirname, '..', 'admin.mjs'), ...argv],
        { env: { ...process.env, ...stack.env }, encoding: 'utf8', timeout: 120_000 },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
    });

  const verifyOnline = async (bytes: Buffer) => {
    const response = await fetch(`${stack.gatewayUrl}/api/v1/records/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', connection: 'close' },
      body: new Uint8Array(bytes),
    });
    return { status: response.status, body: (await response.json()) as { valid: boolean; reason?: string; request?: string; kind?: string } };
  };

  it('serves the CSV with no-store, one row per event, every time of the Task histories in it', async () => {
    // Fetched directly: the e2e contract (api-client.ts) reads JSON answers only.
    const csv = await download('csv');
    expect([csv.status, csv.headers.get('content-type'), csv.headers.get('cache-control')]).toEqual([
      200,
      'text/csv; charset=utf-8; header=present',
      'no-store',
    ]);
    const rows = csvRows(csv.bytes.toString('utf8'));
    const inCsv = rows.map((row) => row.at_utc);
    for (const at of await historyTimes()) expect(inCsv).toContain(at);
    const answer = rows.find((row) => row.event === 'answer');
    expect(answer).toMatchObject({ clinic_ik: A, code: 'accepted', note: 'Bett frei ab Montag' });
    expect(
      rows
        .filter((row) => row.event === 'asked')
        .map((row) => row.clinic_ik)
        .sort(),
    ).toEqual([A, B]);
    expect(rows.some((row) => row.event === 'selected' && row.clinic_ik === A)).toBe(true);
    // Who sent each version and asked each clinic: the person with the display name of their login.
    const anna = `user:${annaId} (Anna Aufnahme)`;
    expect(rows.filter((row) => ['request-sent', 'supplement', 'asked'].includes(row.event!)).map((row) => [row.event, row.clinic_ik, row.by])).toEqual(
      expect.arrayContaining([
        ['request-sent', '', anna],
        ['supplement', '', anna],
        ['asked', A, anna],
        ['asked', B, anna],
      ]),
    );
  });

  it('serves a PDF pdftotext reads, with every time of the Task histories in UTC', async () => {
    const pdf = await download('pdf');
    expect([pdf.status, pdf.headers.get('content-type'), pdf.headers.get('cache-control')]).toEqual([200, 'application/pdf', 'no-store']);
    writeFileSync(join(dir, 'record.pdf'), pdf.bytes);
    const text = execFileSync('pdftotext', ['-layout', join(dir, 'record.pdf'), '-'], { encoding: 'utf8' });
    for (const at of await historyTimes()) expect(text).toContain(at);
    expect(text).toContain(`Durch: user:${annaId} (Anna Aufnahme)`);
  });

  it('is accepted by `record verify` and the public endpoint, and refused by both with one changed byte', async () => {
    for (const format of ['pdf', 'csv'] as const) {
      const { bytes } = await download(format);
      const changed = Buffer.from(bytes);
      changed[Math.floor(bytes.length / 3)] = changed[Math.floor(bytes.length / 3)]! ^ 0x01;
      writeFileSync(join(dir, `good.${format}`), bytes);
      writeFileSync(join(dir, `changed.${format}`), changed);
      const good = await admin(['record', 'verify', join(dir, `good.${format}`)]);
      expect([good.code, good.stdout]).toEqual([0, expect.stringContaining(`valid: the ${format.toUpperCase()} record of the request ${identifier}`)]);
      const refused = await admin(['record', 'verify', join(dir, `changed.${format}`)]);
      expect([refused.code, refused.stderr]).toEqual([1, expect.stringMatching(/not valid \((changed|bad-signature|malformed-signature)\)/)]);
      expect(await verifyOnline(bytes)).toEqual({ status: 200, body: expect.objectContaining({ valid: true, request: identifier, kind: format }) });
      expect((await verifyOnline(changed)).body).toMatchObject({ valid: false });
    }
    const jwks = await stack.api<{ keys: { kid: string }[] }>('GET', '/api/v1/records/jwks');
    expect(jwks.body.keys.length).toBeGreaterThanOrEqual(1);
  });

  it('answers another party 404, and a clinic 403', async () => {
    expect((await download('pdf', stranger)).status).toBe(404);
    expect((await download('csv', clinic[A])).status).toBe(403);
  });
});
