import express from 'express';
import request from 'supertest';
import type { ClinicDocumentList, DocumentBundle, RequestVersion, RequestVersionList } from '@bedrequest/contracts';
import { admissionRequestBundle, documentBundle, fhirTask } from '@bedrequest/fhir-model/testing';
import { jsonErrorHandler } from '@bedrequest/http';
import { silentLogger } from '@bedrequest/testing';
import { CsrfTokens } from '../session/csrf';
import { Formats } from './format';
import type { InboxApi } from './inbox-api';
import { ClinicRecords, type InboxContext } from './inbox-context';
import { taskRoutes } from './task-routes';
import { de } from './texts.de';

const A = '510000001';
const TASK_ID = '5a0c6f5e-4c57-4e0a-9a51-0d2a1b6f1c11';
const identifier = 'https://referrer.example/fhir/ServiceRequest/pages';

/** Version `n` of the request, with notes that tell the versions apart. */
const version = (n: number): RequestVersion => ({
  version: n,
  receivedAt: `2026-11-${String(n).padStart(2, '0')}T10:00:00Z`,
  bundle: admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A], notes: [`Fassung ${n}`] }) as unknown as RequestVersion['bundle'],
});
const document = (texts: string[], timestamp = '2026-11-20T10:00:00Z'): DocumentBundle =>
  documentBundle({
    requestIdentifier: identifier,
    timestamp,
    documents: texts.map((text, index) => ({ contentType: 'text/plain', text, ...(index === 0 ? { title: `Befund ${text}` } : {}) })),
  }) as unknown as DocumentBundle;

/**
 * The request's page and its attachments against a stand-in for the public API (InboxApi): which
 * pages of versions and documents the inbox asks for, what it says of those it does not show, and
 * that an attachment is read with its one document alone. The whole path runs against the real
 * services in tools/e2e/inbox/inbox-flow.int.spec.ts.
 */
describe('a request in the inbox: its versions and documents a page at a time', () => {
  let calls: string[];
  let versions: RequestVersionList;
  let documents: ClinicDocumentList;
  let stored: unknown[];

  const api = {
    task: async (taskId: string) => fhirTask({ id: taskId, clinicIk: A }),
    versions: async (_taskId: string, page: URLSearchParams) => {
      calls.push(`versions?${page}`);
      return versions;
    },
    documents: async (_taskId: string, page: URLSearchParams) => {
      calls.push(`documents?${page}`);
      return documents;
    },
    document: async (_taskId: string, n: number) => {
      calls.push(`document ${n}`);
      return stored[n];
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
    .use((_req, res, next) => {
      res.locals.inboxSession = { id: 'session-1', accessToken: 'token', principal: { partyId: 'p', role: 'clinic', ikNumbers: [A] } };
      next();
    })
    .use(taskRoutes(context))
    .use(jsonErrorHandler(silentLogger()));

  beforeEach(() => {
    calls = [];
    versions = { total: 2, items: [version(2), version(1)] };
    documents = { total: 1, items: [] };
    stored = [];
  });

  it('asks for the newest 10 versions and the first 20 documents, and compares each version shown with the one shown before it', async () => {
    versions = { total: 2, items: [version(2), version(1)] };

    const page = await request(inbox).get(`/tasks/${TASK_ID}`);

    expect(page.status).toBe(200);
    expect(calls).toEqual(['versions?_sort=-version&_count=10', 'documents?_count=20']);
    const history = page.text.slice(page.text.indexOf('<ol class="history"'));
    expect([...history.matchAll(/<li data-version="(\d+)"/g)].map((match) => match[1])).toEqual(['2', '1']);
    expect(history).toContain('Fassung 2');
    expect(history).toContain(de.task.historyFirst);
    expect(page.text).not.toContain('ältere Version');
  });

  it('says how many earlier versions are not shown, and does not call the oldest shown the first', async () => {
    versions = { total: 13, items: [13, 12, 11, 10, 9, 8, 7, 6, 5, 4].map(version) };

    const page = await request(inbox).get(`/tasks/${TASK_ID}`);

    expect(page.text).toContain('3 ältere Versionen werden hier nicht angezeigt.');
    expect(page.text).toContain(de.task.historyNotCompared);
    expect(page.text).not.toContain(de.task.historyFirst);
    expect(page.text).toContain('data-version="13" id="task-title"');
  });

  it('lists the attachments of the first page of documents by document and attachment position, and says how many documents more exist', async () => {
    documents = { total: 23, items: [document(['eins']), document(['zwei', 'drei'], '2026-11-21T10:00:00Z')] };

    const page = await request(inbox).get(`/tasks/${TASK_ID}`);

    const links = [...page.text.matchAll(/href="(\/inbox\/tasks\/[^"?]+)"/g)].map((match) => match[1]);
    expect(links).toEqual([
      `/inbox/tasks/${TASK_ID}/documents/0/attachments/0`,
      `/inbox/tasks/${TASK_ID}/documents/1/attachments/0`,
      `/inbox/tasks/${TASK_ID}/documents/1/attachments/1`,
    ]);
    expect(page.text).toContain('Dokument 2, Anhang 2');
    expect(page.text).toContain('21 weitere Dokumente sind vorhanden und hier nicht aufgeführt.');
  });

  it('sends an attachment read with its document alone, with the type, disposition and policy of a document', async () => {
    stored = [document(['eins']), document(['zwei', 'drei'])];

    const opened = await request(inbox).get(`/tasks/${TASK_ID}/documents/1/attachments/1`);

    expect(calls).toEqual(['document 1']);
    expect(opened.status).toBe(200);
    expect(opened.text).toBe('drei');
    expect(opened.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(opened.headers['content-disposition']).toMatch(/^inline; filename="Dokument 2, Anhang 2"$/);
    expect(opened.headers['x-content-type-options']).toBe('nosniff');
    expect(opened.headers['content-security-policy']).toContain('sandbox');
    const downloaded = await request(inbox).get(`/tasks/${TASK_ID}/documents/0/attachments/0?download=1`);
    expect(downloaded.headers['content-disposition']).toMatch(/^attachment; filename="Befund eins"$/);
  });

  it.each([
    ['an attachment past the last of its document', '/documents/0/attachments/1', ['document 0']],
    ['a document past the last', '/documents/5/attachments/0', ['document 5']],
    ['a position that is not a number', '/documents/first/attachments/0', []],
    ['a negative attachment position', '/documents/0/attachments/-1', []],
  ])('answers 404 for %s', async (_, path, asked) => {
    stored = [document(['eins'])];

    const response = await request(inbox).get(`/tasks/${TASK_ID}${path}`);

    expect(response.status).toBe(404);
    expect(calls).toEqual(asked);
  });
});
