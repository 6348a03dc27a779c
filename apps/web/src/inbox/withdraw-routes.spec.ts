import express from 'express';
import request from 'supertest';
import type { FhirTask, RequestVersion } from '@bedrequest/contracts';
import { admissionRequestBundle, fhirTask } from '@bedrequest/fhir-model/testing';
import { jsonErrorHandler } from '@bedrequest/http';
import { silentLogger } from '@bedrequest/testing';
import { CsrfTokens } from '../session/csrf';
import { memoryAnswerDrafts } from './answer-drafts';
import { Formats } from './format';
import type { AnswerResult, InboxApi } from './inbox-api';
import { ClinicRecords, type InboxContext } from './inbox-context';
import { taskRoutes } from './task-routes';
import { de } from './texts.de';

const A = '510000001';
const TASK_ID = '5a0c6f5e-4c57-4e0a-9a51-0d2a1b6f1c12';
const identifier = 'https://referrer.example/fhir/ServiceRequest/withdraw';
const VERSION: RequestVersion = {
  version: 2,
  receivedAt: '2026-11-02T10:00:00Z',
  bundle: admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A] }) as unknown as RequestVersion['bundle'],
};

/**
 * The selected clinic's withdrawal of its acceptance on the request's page (withdraw-routes.ts)
 * against a stand-in for the public API: the form instead of the answer, the reason required, the
 * confirmation by redirect, If-Match from the Task as read, the request's page afterwards saying so
 * once, and what changed when the API refuses it (412). The whole path against the real services:
 * tools/e2e/inbox/inbox-after-selection.int.spec.ts.
 */
describe('withdrawing the acceptance of a selected request', () => {
  let task: FhirTask;
  let etag: string;
  let answered: AnswerResult;
  let sent: { reason: string; ifMatch: string | undefined }[];
  const api = {
    task: async () => ({ task, etag }),
    versions: async () => ({ total: 1, items: [VERSION] }),
    documents: async () => ({ total: 0, items: [] }),
    history: async () => undefined,
    referrer: async () => ({ name: 'Klinikum Nord' }),
    withdrawAcceptance: async (_taskId: string, reason: string, ifMatch: string | undefined) => {
      sent.push({ reason, ifMatch });
      return answered;
    },
    clinics: async () => ({ items: [] }),
  };
  const context: InboxContext = {
    api: api as unknown as InboxApi,
    csrf: new CsrfTokens('c'.repeat(32)),
    texts: de,
    formats: new Formats(de),
    assets: { script: '/inbox/assets/inbox.js', style: '/inbox/assets/inbox.css' },
    profileBase: 'https://bedrequest.example.org',
    logger: silentLogger(),
    clinics: new ClinicRecords(api as unknown as InboxApi),
  };
  const inbox = express()
    .use(express.urlencoded({ extended: false }))
    .use((_req, res, next) => {
      res.locals.inboxSession = { id: 'session-1', accessToken: 'token', principal: { partyId: 'p', role: 'clinic', ikNumbers: [A] } };
      next();
    })
    .use(taskRoutes(context, memoryAnswerDrafts()))
    .use(jsonErrorHandler(silentLogger()));

  beforeEach(() => {
    task = fhirTask({ id: TASK_ID, clinicIk: A, businessStatus: 'accepted', status: 'in-progress' });
    etag = 'W/"2-5-abc"';
    answered = { status: 200, task: fhirTask({ id: TASK_ID, clinicIk: A, businessStatus: 'declined', status: 'rejected' }) };
    sent = [];
  });

  it('offers the withdrawal instead of the answer on a selected Task, and the answer on one not selected', async () => {
    const selected = await request(inbox).get(`/tasks/${TASK_ID}`).expect(200);
    expect(selected.text).toContain('id="withdraw-form"');
    expect(selected.text).toContain(`action="/inbox/tasks/${TASK_ID}/withdraw"`);
    expect(selected.text).not.toContain('id="answer-form"');
    task = fhirTask({ id: TASK_ID, clinicIk: A, businessStatus: 'accepted' });
    const open = await request(inbox).get(`/tasks/${TASK_ID}`).expect(200);
    expect(open.text).toContain('id="answer-form"');
    expect(open.text).not.toContain('id="withdraw-form"');
  });

  it('asks for a reason, confirms on a page of its own, sends with If-Match and says so once on the request', async () => {
    const agent = request.agent(inbox);
    const blank = await agent.post(`/tasks/${TASK_ID}/withdraw`).type('form').send({ reason: '  ', tag: etag, version: '2' }).expect(400);
    expect(blank.text).toContain(de.withdraw.reasonRequired);
    expect(sent).toEqual([]);

    await agent
      .post(`/tasks/${TASK_ID}/withdraw`)
      .type('form')
      .send({ reason: 'Kein Bett mehr', tag: etag, version: '2' })
      .expect(303)
      .expect('location', `/inbox/tasks/${TASK_ID}/withdraw/confirm`);
    const confirm = await agent.get(`/tasks/${TASK_ID}/withdraw/confirm`).expect(200);
    expect(confirm.text).toContain(de.withdraw.confirmTitle);
    expect(confirm.text).toContain('Kein Bett mehr');
    expect(sent).toEqual([]);

    await agent
      .post(`/tasks/${TASK_ID}/withdraw`)
      .type('form')
      .send({ reason: 'Kein Bett mehr', tag: etag, version: '2', step: 'confirm' })
      .expect(303)
      .expect('location', `/inbox/tasks/${TASK_ID}`);
    expect(sent).toEqual([{ reason: 'Kein Bett mehr', ifMatch: etag }]);
    // The draft is gone: Back to the confirmation goes on to the request.
    await agent.get(`/tasks/${TASK_ID}/withdraw/confirm`).expect(303).expect('location', `/inbox/tasks/${TASK_ID}`);
    task = answered.status === 200 ? answered.task : task;
    expect((await agent.get(`/tasks/${TASK_ID}`).expect(200)).text).toContain(de.withdraw.done);
    expect((await agent.get(`/tasks/${TASK_ID}`).expect(200)).text).not.toContain(de.withdraw.done);
  });

  it('shows what changed when the API refuses the withdrawal for a Task changed meanwhile, keeping the reason', async () => {
    answered = { status: 412, message: 'changed' };
    task = fhirTask({ id: TASK_ID, clinicIk: A, businessStatus: 'query', status: 'in-progress' });
    etag = 'W/"2-6-def"';
    const refused = await request(inbox)
      .post(`/tasks/${TASK_ID}/withdraw`)
      .type('form')
      .send({ reason: 'Kein Bett mehr', tag: 'W/"2-5-abc"', version: '2', step: 'confirm' })
      .expect(412);
    expect(refused.text).toContain(de.withdraw.staleTitle);
    expect(refused.text).toContain(de.answer.staleAnswer(de.businessStatus.query));
    expect(refused.text).toContain('>Kein Bett mehr</textarea>');
    expect(refused.text).toContain(`name="tag" value="${etag.replace(/"/g, '&quot;')}"`);
  });

  it('says the clinic is no longer selected when the API answers 409', async () => {
    answered = { status: 409, message: 'not selected' };
    const refused = await request(inbox)
      .post(`/tasks/${TASK_ID}/withdraw`)
      .type('form')
      .send({ reason: 'Kein Bett mehr', tag: etag, version: '2', step: 'confirm' })
      .expect(409);
    expect(refused.text).toContain(de.withdraw.conflict);
  });
});
