import express from 'express';
import request from 'supertest';
import type { Bundle, DocumentReference } from '@medplum/fhirtypes';
import type { FhirTask } from '@bedrequest/contracts';
import { DEFAULT_PROFILE_BASE, documentBundleCapacity, validateDocumentBundle } from '@bedrequest/fhir-model';
import { fhirTask } from '@bedrequest/fhir-model/testing';
import { jsonErrorHandler } from '@bedrequest/http';
import { silentLogger } from '@bedrequest/testing';
import { CsrfTokens } from '../session/csrf';
import { Formats } from '../inbox/format';
import type { InboxApi } from '../inbox/inbox-api';
import { documentsRoutes } from './documents-routes';
import { documentTypeOf } from './documents-upload';
import { documentsTexts as t, megabytes } from './documents.texts.de';
import { PartyNames, type WorkspaceContext } from './workspace-context';
import { workspaceDe } from './workspace.texts.de';

const TASK_ID = '0b9d7c36-8f3e-4a43-9d55-3f0f4d1a7c01';
const IDENTIFIER = 'https://hospital.example/fhir/ServiceRequest/documents';
const PDF = Buffer.from('%PDF-1.7\n1 0 obj <<>> endobj\n%%EOF\n');
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('IHDR…')]);
const CAPACITY = documentBundleCapacity(DEFAULT_PROFILE_BASE);

/**
 * "Unterlagen senden" (documents-routes.ts) against a stand-in for the public API: the limits on the
 * page, the files checked by their first bytes and sizes while they stream in, one DocumentBundle for
 * the request with the kinds typed, and the service's refusal in its words. The whole path against
 * the real services and Chromium: tools/e2e/workspace/workspace-documents.int.spec.ts.
 */
describe('sending documents for a request', () => {
  let task: FhirTask;
  let sent: Bundle[];
  let answer: { ok: true } | { ok: false; status: number; issues: { diagnostics: string; expression: string[] }[] };
  const hospital = {
    task: async (id: string) => (id === task.id ? task : undefined),
    tasks: async () => ({ tasks: [task], more: false }),
    party: async () => ({ name: 'Akutklinik Mitte' }),
    send: async (bundle: Bundle) => {
      sent.push(bundle);
      return answer;
    },
  };
  const api = { hospitalFor: () => hospital, clinics: async () => ({ items: [] }) } as unknown as InboxApi;
  const context: WorkspaceContext = {
    api,
    csrf: new CsrfTokens('c'.repeat(32)),
    texts: workspaceDe,
    formats: new Formats(workspaceDe),
    assets: { script: '/inbox/assets/inbox.js', style: '/inbox/assets/inbox.css' },
    logger: silentLogger(),
    parties: new PartyNames(api),
    profileBase: DEFAULT_PROFILE_BASE,
  };
  const app = express()
    .use((_req, res, next) => {
      res.locals.inboxSession = { id: 'session-1', accessToken: 'token', principal: { partyId: 'p', role: 'referrer', ikNumbers: ['261300001'] } };
      next();
    })
    .use(documentsRoutes(context))
    .use(jsonErrorHandler(silentLogger()));
  const path = `/requests/${TASK_ID}/documents`;
  const TOKEN = context.csrf.tokenOf('session-1');

  beforeEach(() => {
    task = fhirTask({ id: TASK_ID, requestIdentifier: IDENTIFIER });
    sent = [];
    answer = { ok: true };
  });

  it('states the limits, per file and together, in MB before anything is chosen, computed from the 10 MiB of a bundle', async () => {
    const page = await request(app).get(path).expect(200);
    expect(megabytes(CAPACITY)).toBe('7,4 MB');
    expect(page.text).toContain(t.limits(CAPACITY, CAPACITY, 5));
    expect(page.text).toContain('jede Datei höchstens 7,4 MB, alle zusammen höchstens 7,4 MB');
    expect(page.text).toContain('enctype="multipart/form-data"');
    expect(page.text).toContain('name="_csrf"');
  });

  it('sends one DocumentBundle for the request with each file byte for byte under the kind typed, and says so', async () => {
    await request(app)
      .post(path)
      .field('_csrf', TOKEN)
      .field('kind-1', 'Arztbrief')
      .attach('file-1', PDF, { filename: 'Mustermann Arztbrief.pdf', contentType: 'application/octet-stream' })
      .field('kind-2', ' Befund ')
      .attach('file-2', PNG, { filename: 'scan.png', contentType: 'image/png' })
      .expect(303)
      .expect('location', `/workspace/requests/${TASK_ID}?documents=1`);
    expect(sent).toHaveLength(1);
    const bundle = sent[0]!;
    expect(validateDocumentBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE })).toMatchObject({ ok: true, bundle: { requestIdentifier: IDENTIFIER } });
    const references = (bundle.entry ?? [])
      .map((entry) => entry.resource)
      .filter((resource): resource is DocumentReference => resource?.resourceType === 'DocumentReference');
    expect(references.map((reference) => [reference.type?.text, reference.content[0]?.attachment.contentType])).toEqual([
      ['Arztbrief', 'application/pdf'],
      ['Befund', 'image/png'],
    ]);
    expect(Buffer.from(references[0]!.content[0]!.attachment.data ?? '', 'base64').equals(PDF)).toBe(true);
    expect(Buffer.from(references[1]!.content[0]!.attachment.data ?? '', 'base64').equals(PNG)).toBe(true);
    // The file names may name the patient: they go nowhere.
    expect(JSON.stringify(bundle)).not.toContain('Mustermann');
  });

  it("refuses a form without the session's token, sending nothing", async () => {
    await request(app).post(path).field('_csrf', 'forged').field('kind-1', 'Arztbrief').attach('file-1', PDF, 'x.pdf').expect(403);
    await request(app).post(path).field('kind-1', 'Arztbrief').attach('file-1', PDF, 'x.pdf').expect(403);
    expect(sent).toEqual([]);
  });

  it('takes the whole form as a browser sends it: the token, and a kind and a file part for every row, chosen or not', async () => {
    let form = request(app).post(path).field('_csrf', TOKEN);
    for (let row = 1; row <= 5; row += 1) {
      form = form.field(`kind-${row}`, row === 3 ? 'Medikationsplan' : '');
      form =
        row === 3
          ? form.attach(`file-${row}`, PDF, 'plan.pdf')
          : form.attach(`file-${row}`, Buffer.alloc(0), { filename: '', contentType: 'application/octet-stream' });
    }
    await form.expect(303);
    expect(sent).toHaveLength(1);
  });

  it('refuses a text file named .pdf beside its field and sends nothing', async () => {
    const page = await request(app)
      .post(path)
      .field('_csrf', TOKEN)
      .field('kind-1', 'Arztbrief')
      .attach('file-1', Buffer.from('Kein PDF, nur Text.'), { filename: 'brief.pdf', contentType: 'application/pdf' })
      .expect(400);
    expect(page.text).toContain(`<p class="field-error" id="d-file-1-error">${t.errors.type}</p>`);
    expect(page.text).toContain('value="Arztbrief"');
    expect(sent).toEqual([]);
  });

  it('refuses a file over the limit while it streams in, and files over the limit together, and sends nothing', async () => {
    const over = Buffer.concat([PDF, Buffer.alloc(CAPACITY)]);
    const one = await request(app).post(path).field('_csrf', TOKEN).field('kind-1', 'Befund').attach('file-1', over, 'gross.pdf').expect(413);
    expect(one.text).toContain(`<p class="field-error" id="d-file-1-error">${t.errors.size(CAPACITY)}</p>`);
    const half = Buffer.concat([PDF, Buffer.alloc(Math.ceil(CAPACITY / 2))]);
    const two = await request(app)
      .post(path)
      .field('_csrf', TOKEN)
      .field('kind-1', 'Befund')
      .attach('file-1', half, 'a.pdf')
      .field('kind-2', 'Befund')
      .attach('file-2', half, 'b.pdf')
      .expect(413);
    expect(two.text).not.toContain('id="d-file-1-error"');
    expect(two.text).toContain(`<p class="field-error" id="d-file-2-error">${t.errors.total(CAPACITY)}</p>`);
    expect(sent).toEqual([]);
  });

  it('takes a file of the limit exactly', async () => {
    const full = Buffer.concat([PDF, Buffer.alloc(CAPACITY - PDF.length)]);
    await request(app).post(path).field('_csrf', TOKEN).field('kind-1', 'Befund').attach('file-1', full, 'genau.pdf').expect(303);
    expect(sent).toHaveLength(1);
  });

  it('asks for a file, and for the kind of each file', async () => {
    const none = await request(app).post(path).field('_csrf', TOKEN).field('kind-1', '').expect(400);
    expect(none.text).toContain(t.errors.none);
    const untitled = await request(app).post(path).field('_csrf', TOKEN).attach('file-1', PDF, 'x.pdf').expect(400);
    expect(untitled.text).toContain(`<p class="field-error" id="d-kind-1-error">${t.errors.kind}</p>`);
    expect(sent).toEqual([]);
  });

  it("shows the service's refusal in its words (a request over its limits: 409)", async () => {
    answer = { ok: false, status: 409, issues: [{ diagnostics: 'the request has 50 documents, the limit of 50', expression: [] }] };
    const page = await request(app).post(path).field('_csrf', TOKEN).field('kind-1', 'Arztbrief').attach('file-1', PDF, 'x.pdf').expect(409);
    expect(page.text).toContain(t.refusedStatus[409]);
    expect(page.text).toContain('the request has 50 documents, the limit of 50');
  });

  it('offers nothing for a revoked or erased request (every Task cancelled), and nothing for another party’s', async () => {
    task = fhirTask({ id: TASK_ID, requestIdentifier: IDENTIFIER, status: 'cancelled' });
    await request(app).get(path).expect(409);
    await request(app).post(path).field('_csrf', TOKEN).field('kind-1', 'Arztbrief').attach('file-1', PDF, 'x.pdf').expect(409);
    await request(app).get('/requests/7e0c7d36-8f3e-4a43-9d55-3f0f4d1a7c02/documents').expect(404);
    expect(sent).toEqual([]);
  });
});

describe('documentTypeOf', () => {
  it('tells PDF, PNG and JPEG by their first bytes, and nothing else', () => {
    expect(documentTypeOf(PDF)).toBe('application/pdf');
    expect(documentTypeOf(PNG)).toBe('image/png');
    expect(documentTypeOf(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00]))).toBe('image/jpeg');
    expect(documentTypeOf(Buffer.from('%PD'))).toBeUndefined();
    expect(documentTypeOf(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toBeUndefined();
  });
});
