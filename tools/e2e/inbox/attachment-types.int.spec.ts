import { randomUUID } from 'node:crypto';
import type { Bundle } from '@medplum/fhirtypes';
import { admissionRequestBundle, documentBundle } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { passwordOf, startE2eStack, type E2eStack } from '../e2e-stack';
import { HttpBrowser, csrfOf, type PageAnswer } from './http-browser';
import { FHIR_BASE, REFERRER_IK } from './inbox-harness';

/**
 * An attachment as the clinic inbox serves it, through the whole stack: the types a browser may show
 * without running anything of the document's (PDF, the common images, plain text) are shown inline
 * with their type; every other one, and every download, is `application/octet-stream` as an
 * attachment with nosniff, whatever type the sender named, so that no browser renders an HTML or
 * SVG document of a sender in the inbox's origin. A plain HTTP client stands in for the browser.
 */
const CLINIC = { ik: '513800001', name: 'Reha-Klinik Anhang' };
const DOCUMENTS = [
  { contentType: 'text/html', text: '<script>alert(document.cookie)</script>', title: 'Seite' },
  { contentType: 'image/svg+xml', text: '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', title: 'Bild' },
  { contentType: 'application/pdf', text: '%PDF-1.4\n%%EOF\n', title: 'Befund' },
  { contentType: 'text/plain', text: 'Entlassbrief: mobil an Unterarmgehstützen.', title: 'Arztbrief' },
];

describe('the types of the attachments the clinic inbox serves', () => {
  let stack: E2eStack;
  let browser: HttpBrowser;
  let taskId: string;

  beforeAll(async () => {
    stack = await startE2eStack({ NODE_ENV: 'test' });
    const suffix = randomUUID().slice(0, 8);
    await stack.registerClinic(CLINIC.ik, CLINIC.name, ['2300']);
    const clinicUser = `attachments-${suffix}`;
    await stack.createClinicUser(clinicUser, CLINIC.ik);
    const referrer = `attachments-referrer-${suffix}`;
    await stack.createReferrer(referrer, [REFERRER_IK], FHIR_BASE);
    const referrerToken = await stack.login(referrer);
    const identifier = `${FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const request = admissionRequestBundle({ fhirBase: FHIR_BASE, requesterIk: REFERRER_IK, performerIks: [CLINIC.ik], requestIdentifier: identifier });
    expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrerToken, body: request })).status).toBe(202);
    taskId = await waitFor(
      async () =>
        (await stack.api<Bundle>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: referrerToken })).body.entry?.[0]?.resource
          ?.id,
      { what: 'the Task of the request' },
    );
    const documents = documentBundle({ requestIdentifier: identifier, documents: DOCUMENTS });
    expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrerToken, body: documents })).status).toBe(202);

    browser = new HttpBrowser(stack.webUrl);
    const login = await browser.get('/inbox/login');
    const loggedIn = await browser.postForm('/inbox/login', { username: clinicUser, password: passwordOf(clinicUser), _csrf: csrfOf(login.text) });
    expect(loggedIn).toMatchObject({ status: 303, headers: { location: '/inbox/tasks' } });
    await waitFor(async () => (await attachment(DOCUMENTS.length - 1)).status === 200, { what: 'the documents in the inbox' });
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  /** The k-th attachment of the request's first document, opened (or with `download`, downloaded). */
  const attachment = (k: number, download = false): Promise<PageAnswer> =>
    browser.get(`/inbox/tasks/${taskId}/documents/0/attachments/${k}${download ? '?download=1' : ''}`);
  const served = (answer: PageAnswer) => ({
    status: answer.status,
    type: answer.headers['content-type'],
    disposition: String(answer.headers['content-disposition']).split(';')[0],
    nosniff: answer.headers['x-content-type-options'],
  });
  const downloaded = { status: 200, type: 'application/octet-stream', disposition: 'attachment', nosniff: 'nosniff' };

  it.each([
    ['text/html', 0],
    ['image/svg+xml', 1],
  ])('serves a %s document as application/octet-stream to download, opened or downloaded', async (_type, k) => {
    expect(served(await attachment(k))).toEqual(downloaded);
    expect(served(await attachment(k, true))).toEqual(downloaded);
    expect((await attachment(k)).text).toBe(DOCUMENTS[k]!.text);
  });

  it('shows a PDF and plain text inline with their type, and downloads them as application/octet-stream', async () => {
    expect(served(await attachment(2))).toEqual({ status: 200, type: 'application/pdf', disposition: 'inline', nosniff: 'nosniff' });
    expect(served(await attachment(3))).toEqual({ status: 200, type: 'text/plain; charset=utf-8', disposition: 'inline', nosniff: 'nosniff' });
    expect(served(await attachment(2, true))).toEqual(downloaded);
    expect(served(await attachment(3, true))).toEqual(downloaded);
  });
});
