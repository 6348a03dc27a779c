import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import request from 'supertest';
import { DEFAULT_PROFILE_BASE } from '@bedrequest/fhir-model';
import { jsonErrorHandler } from '@bedrequest/http';
import { silentLogger } from '@bedrequest/testing';
import { CsrfTokens } from '../session/csrf';
import { Formats } from '../inbox/format';
import { InboxApi } from '../inbox/inbox-api';
import { payerRecordTexts } from './payer-record.texts.de';
import { recordRoutes } from './record-routes';
import { PartyNames, type WorkspaceContext } from './workspace-context';
import { workspaceDe } from './workspace.texts.de';

const TASK_ID = '0b9d7c36-8f3e-4a43-9d55-3f0f4d1a7c01';
const OTHERS = '0b9d7c36-8f3e-4a43-9d55-3f0f4d1a7c02';
const ERASED = '0b9d7c36-8f3e-4a43-9d55-3f0f4d1a7c03';
const HTML_ANSWER = '0b9d7c36-8f3e-4a43-9d55-3f0f4d1a7c04';
// Every byte value, so that a text decoding on the way would show.
const PDF = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from(Array.from({ length: 256 }, (_, byte) => byte)), Buffer.from('\n%%EOF\n')]);
const CSV = Buffer.from('# Nachweis für Kostenträger\r\n"at_utc","event"\r\n"2026-12-07T05:00:00.000Z","ready-for-transfer"\r\n');

/**
 * The record's download from a request's page (record-routes.ts) with the web app's real API client
 * against a stand-in for the gateway: the bytes passed on unchanged with the gateway's type and file
 * name and no-store, the person's token sent, and the gateway's refusals as the page's. The whole path
 * against the real services and Chromium: tools/e2e/workspace/workspace-record.int.spec.ts.
 */
describe('downloading the record for the payer', () => {
  let gateway: Server;
  let app: express.Express;
  let api: InboxApi;
  const asked: { path: string; authorization?: string }[] = [];

  beforeAll(async () => {
    const stand = express();
    stand.get('/api/v1/party', (_req, res) =>
      res.json({ id: '7d3e2f10-5c4b-4a39-8e21-0f6a9b8c7d01', role: 'referrer', name: 'Akutklinik Mitte', ik: ['261300001'] }),
    );
    stand.get('/api/v1/referrer/records/:taskId', (req, res) => {
      asked.push({ path: req.url, authorization: req.headers.authorization });
      res.set('cache-control', 'no-store');
      const { taskId } = req.params;
      if (taskId === OTHERS) return res.status(404).json({ error: 'not_found', message: 'no such request' });
      if (taskId === ERASED) return res.status(410).json({ error: 'gone', message: 'the patient data of this request was erased' });
      if (taskId === HTML_ANSWER) return res.status(200).type('text/html').send('<p>a proxy page</p>');
      const csv = req.query.format === 'csv';
      res
        .status(200)
        .set('content-type', csv ? 'text/csv; charset=utf-8; header=present' : 'application/pdf')
        .set('content-disposition', `attachment; filename="nachweis-kostentraeger-2026-12-07.${csv ? 'csv' : 'pdf'}"`)
        .send(csv ? CSV : PDF);
    });
    gateway = stand.listen(0);
    await new Promise((resolve) => gateway.once('listening', resolve));
    api = new InboxApi(`http://127.0.0.1:${(gateway.address() as AddressInfo).port}`);
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
    app = express()
      .use((_req, res, next) => {
        res.locals.inboxSession = {
          id: 'session-1',
          accessToken: 'the-persons-token',
          principal: { partyId: 'p', role: 'referrer', ikNumbers: ['261300001'] },
        };
        next();
      })
      .use(recordRoutes(context))
      .use(jsonErrorHandler(silentLogger()));
  });

  afterAll(async () => {
    await api.close();
    await new Promise((resolve) => gateway.close(resolve));
  });

  beforeEach(() => {
    asked.length = 0;
  });

  it("passes the PDF on byte for byte with its type, its file name and no-store, asked with the person's token", async () => {
    const answer = await request(app)
      .get(`/requests/${TASK_ID}/record.pdf`)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      })
      .expect(200);
    expect(Buffer.compare(answer.body as Buffer, PDF)).toBe(0);
    expect(answer.headers['content-type']).toBe('application/pdf');
    expect(answer.headers['content-disposition']).toBe('attachment; filename="nachweis-kostentraeger-2026-12-07.pdf"');
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(asked).toEqual([{ path: `/api/v1/referrer/records/${TASK_ID}?format=pdf`, authorization: 'Bearer the-persons-token' }]);
  });

  it('passes the CSV on with its type and file name', async () => {
    const answer = await request(app).get(`/requests/${TASK_ID}/record.csv`).expect(200);
    expect(answer.text).toBe(CSV.toString('utf8'));
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(answer.headers['content-disposition']).toBe('attachment; filename="nachweis-kostentraeger-2026-12-07.csv"');
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(asked.map((call) => call.path)).toEqual([`/api/v1/referrer/records/${TASK_ID}?format=csv`]);
  });

  it("is not found for another party's request, and for a format other than pdf and csv without asking the gateway", async () => {
    await request(app).get(`/requests/${OTHERS}/record.pdf`).expect(404);
    await request(app).get(`/requests/${TASK_ID}/record.xlsx`).expect(404);
    expect(asked.map((call) => call.path)).toEqual([`/api/v1/referrer/records/${OTHERS}?format=pdf`]);
  });

  it("says in German on the workspace's page, with no-store, that an erased request has no record any more", async () => {
    const answer = await request(app).get(`/requests/${ERASED}/record.csv`).expect(410);
    expect(answer.headers['content-type']).toMatch(/^text\/html/);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.text).toContain(payerRecordTexts.record.gone);
    expect(answer.text).toContain(`href="/workspace/requests/${ERASED}"`);
  });

  it('passes nothing on when the gateway answers a file of another type: the service is unavailable', async () => {
    const answer = await request(app).get(`/requests/${HTML_ANSWER}/record.pdf`);
    expect(answer.status).toBe(503);
    expect(answer.text).not.toContain('a proxy page');
    expect(answer.headers['content-disposition']).toBeUndefined();
  });
});
