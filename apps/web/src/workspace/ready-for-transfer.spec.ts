import express from 'express';
import request from 'supertest';
import type { FhirTask } from '@bedrequest/contracts';
import { DEFAULT_PROFILE_BASE } from '@bedrequest/fhir-model';
import { fhirTask } from '@bedrequest/fhir-model/testing';
import { jsonErrorHandler } from '@bedrequest/http';
import { silentLogger } from '@bedrequest/testing';
import { CsrfTokens } from '../session/csrf';
import { Formats } from '../inbox/format';
import type { InboxApi } from '../inbox/inbox-api';
import { payerRecordTexts as t } from './payer-record.texts.de';
import { requestsRoutes } from './requests-routes';
import { PartyNames, type WorkspaceContext } from './workspace-context';
import { workspaceDe } from './workspace.texts.de';

const TASK_ID = '0b9d7c36-8f3e-4a43-9d55-3f0f4d1a7c11';
const IDENTIFIER = 'https://hospital.example/fhir/ServiceRequest/ready';

/**
 * "Verlegungsbereit seit" on a request's page (requests-routes.ts, pages/payer-record.ts) against a
 * stand-in for the public API: the Berlin wall clock sent with its offset, an empty field removing
 * it, a malformed or refused one shown at the field. The whole path against the real services and
 * Chromium: tools/e2e/workspace/workspace-record.int.spec.ts.
 */
describe("the request page's ready-for-transfer time", () => {
  let task: FhirTask;
  let stored: string | undefined;
  let refusal: 400 | 404 | 410 | undefined;
  let sent: { identifier: string; readyAt: string | null }[];
  const referrerData = {
    caseNumbersOf: async () => new Map<string, string>(),
    readyForTransfer: async () => stored,
    setReadyForTransfer: async (identifier: string, readyAt: string | null) => {
      sent.push({ identifier, readyAt });
      return refusal;
    },
  };
  const hospital = {
    task: async (id: string) => (id === task.id ? task : undefined),
    tasks: async () => ({ tasks: [task], more: false }),
    party: async () => ({ name: 'Akutklinik Mitte' }),
    changes: async () => {
      throw new Error('no audit trail in this test');
    },
    readBack: async () => 'erased',
    referrerData: () => referrerData,
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
    .use(express.urlencoded({ extended: false }))
    .use((_req, res, next) => {
      res.locals.inboxSession = { id: 'session-1', accessToken: 'token', principal: { partyId: 'p', role: 'referrer', ikNumbers: ['261300001'] } };
      next();
    })
    .use(requestsRoutes(context))
    .use(jsonErrorHandler(silentLogger()));
  const post = (readyAt: string) => request(app).post(`/requests/${TASK_ID}/ready-for-transfer`).type('form').send({ readyAt });

  beforeEach(() => {
    task = fhirTask({ id: TASK_ID, requestIdentifier: IDENTIFIER });
    stored = undefined;
    refusal = undefined;
    sent = [];
  });

  it('shows the two downloads and an empty field while none is recorded', async () => {
    const page = await request(app).get(`/requests/${TASK_ID}`).expect(200);
    expect(page.text).toContain(`href="/workspace/requests/${TASK_ID}/record.pdf"`);
    expect(page.text).toContain(`href="/workspace/requests/${TASK_ID}/record.csv"`);
    expect(page.text).toContain(`${t.ready.label}: ${t.ready.none}`);
    expect(page.text).toContain('name="readyAt" type="datetime-local" value=""');
  });

  it('shows a recorded time in Berlin time, in words and in the field', async () => {
    stored = '2026-07-01T06:30:00.000Z';
    const page = await request(app).get(`/requests/${TASK_ID}`).expect(200);
    expect(page.text).toContain(t.ready.current('01.07.2026, 08:30'));
    expect(page.text).toContain('value="2026-07-01T08:30"');
  });

  it('sends the Berlin wall clock with its offset, winter and summer, and leads back to the page', async () => {
    await post('2026-12-01T09:15').expect(303).expect('location', `/workspace/requests/${TASK_ID}?readyForTransfer=1`);
    await post('2026-07-01T08:30').expect(303);
    expect(sent).toEqual([
      { identifier: IDENTIFIER, readyAt: '2026-12-01T09:15:00+01:00' },
      { identifier: IDENTIFIER, readyAt: '2026-07-01T08:30:00+02:00' },
    ]);
  });

  it('removes the time when the field is empty', async () => {
    await post('').expect(303);
    expect(sent).toEqual([{ identifier: IDENTIFIER, readyAt: null }]);
  });

  it('shows a malformed time at the field without sending it', async () => {
    const page = await post('01.12.2026 9 Uhr').expect(400);
    expect(page.text).toContain(t.ready.invalid);
    expect(page.text).toContain('value="01.12.2026 9 Uhr"');
    expect(page.text).toContain('aria-invalid="true"');
    expect(sent).toEqual([]);
  });

  it('says at the field that an erased request keeps no time, and is not found for a request of another party', async () => {
    refusal = 410;
    expect((await post('2026-12-01T09:15').expect(400)).text).toContain(t.record.gone);
    refusal = 404;
    await post('2026-12-01T09:15').expect(404);
  });
});
