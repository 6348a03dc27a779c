import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PayerRecord } from './payer-record';
import { recordCsv, recordPdf } from './record-formats';
import { signRecord, verifyRecord, type RecordKind } from './record-signature';
import { thumbprintOf } from './record-signing-keys';

const keyPair = () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const { x } = privateKey.export({ format: 'jwk' }) as { x: string };
  return { signer: { kid: thumbprintOf(x), privateKey }, keys: new Map([[thumbprintOf(x), x]]) };
};

const RECORD: PayerRecord = {
  request: 'https://kis.example/ServiceRequest/1',
  referrerIk: '260000001',
  patient: { name: 'Erika Müller', birthDate: '1950-02-03', insuranceNumber: 'A123456789' },
  madeAt: '2026-12-07T04:20:00.000Z',
  events: [
    { at: '2026-12-01T08:00:00.123Z', event: 'request-sent', version: 1, by: 'user:anna' },
    { at: '2026-12-01T08:00:00.500Z', event: 'asked', clinic: '510000001', version: 1, by: 'user:anna' },
    { at: '2026-12-02T09:30:00.000Z', event: 'answer', clinic: '510000001', code: 'accepted', by: 'user:c1', note: '=Bett "frei",\nab Montag' },
  ],
};

describe("the payer's record and its signature", () => {
  const sign = (content: Buffer, kind: RecordKind, signer = keyPair().signer) =>
    signRecord(content, signer, { request: RECORD.request, kind, signedAt: new Date('2026-12-07T04:20:01.000Z') });

  it.each(['csv', 'pdf'] as const)('verifies a signed %s and says what was signed, when and with which key', async (kind) => {
    const { signer, keys } = keyPair();
    const content = kind === 'csv' ? recordCsv(RECORD) : await recordPdf(RECORD);
    const file = sign(content, kind, signer);
    expect(verifyRecord(file, keys)).toEqual({
      valid: true,
      alg: 'EdDSA',
      kid: signer.kid,
      signedAt: '2026-12-07T04:20:01.000Z',
      request: RECORD.request,
      kind,
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('refuses one changed byte anywhere before the signature line, and in it', () => {
    const { signer, keys } = keyPair();
    const file = sign(recordCsv(RECORD), 'csv', signer);
    const line = file.lastIndexOf('# bedrequest-signature');
    for (const at of [0, 200, line - 3]) {
      const changed = Buffer.from(file);
      changed[at] = changed[at]! ^ 0x01;
      expect(verifyRecord(changed, keys)).toMatchObject({ valid: false, reason: 'changed' });
    }
    const changedSignature = Buffer.from(file);
    changedSignature[file.length - 3] = changedSignature[file.length - 3] === 0x41 ? 0x42 : 0x41;
    expect(verifyRecord(changedSignature, keys)).toMatchObject({ valid: false, reason: 'bad-signature' });
  });

  it('refuses a record signed with another key, and a file without a signature', () => {
    const file = sign(recordCsv(RECORD), 'csv');
    expect(verifyRecord(file, keyPair().keys)).toMatchObject({ valid: false, reason: 'unknown-key' });
    expect(verifyRecord(recordCsv(RECORD), keyPair().keys)).toMatchObject({ valid: false, reason: 'missing-signature' });
    expect(verifyRecord(Buffer.alloc(0), keyPair().keys)).toMatchObject({ valid: false, reason: 'missing-signature' });
  });

  it('writes RFC 4180 CSV: every field quoted, quotes doubled, a formula defused, CRLF, comment lines first', () => {
    const text = recordCsv(RECORD).toString('utf8');
    const lines = text.split('\r\n');
    expect(lines.slice(0, 4).every((line) => line.startsWith('# '))).toBe(true);
    expect(lines[4]).toBe('"at_utc","at_berlin","event","event_de","clinic_ik","version","code","by","note","deadline_utc"');
    expect(lines[5]).toBe('"2026-12-01T08:00:00.123Z","01.12.2026, 09:00:00 Berlin","request-sent","Anfrage gesendet","","1","","user:anna","",""');
    expect(text).toContain(`"'=Bett ""frei"",\nab Montag"`);
    expect(text.endsWith('\r\n')).toBe(true);
  });

  it('keeps a signed PDF readable by pdftotext, with every UTC time in it', async () => {
    const file = sign(await recordPdf(RECORD), 'pdf');
    const path = join(mkdtempSync(join(tmpdir(), 'record-')), 'record.pdf');
    writeFileSync(path, file);
    const text = execFileSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8' });
    expect(text).toContain('Nachweis für Kostenträger');
    for (const event of RECORD.events) expect(text).toContain(event.at);
    expect(text).toContain('Erika Müller');
  });
});
