import express from 'express';
import request from 'supertest';
import type { ClinicTaskList, ClinicTaskSummary } from '@bedrequest/contracts';
import { jsonErrorHandler } from '@bedrequest/http';
import { silentLogger } from '@bedrequest/testing';
import { CsrfTokens } from '../session/csrf';
import { Formats } from './format';
import type { InboxApi } from './inbox-api';
import { ClinicRecords, type InboxContext } from './inbox-context';
import { listRoutes } from './list-routes';
import { de } from './texts.de';

const A = '510000001';
const task = (id: string, status: ClinicTaskSummary['status']): ClinicTaskSummary => ({
  id,
  status,
  authoredOn: '2026-11-20T10:00:00.000Z',
  lastModified: '2026-11-20T10:00:00.000Z',
  version: 1,
  request: { status: 'active', intent: 'proposal', requesterIk: '260000001' },
  patient: { dataLevel: 'complete' },
});
const OPEN = task('11111111-1111-4111-8111-111111111111', 'requested');
// Selected an hour ago.
const SELECTED = { ...task('22222222-2222-4222-8222-222222222222', 'in-progress'), lastModified: new Date(Date.now() - 3600_000).toISOString() };

/**
 * The list's routes against a stand-in for the public API (InboxApi): what it asks the API for, what
 * it keeps in its memory cookie and where it goes back to. The whole path runs against the real
 * services in tools/e2e/inbox/inbox-list-work.int.spec.ts.
 */
describe('the list: order, search and memory', () => {
  let calls: string[];
  /** Whether the stand-in refuses a search (too many requests to search). */
  let refuseSearch: boolean;
  const api = {
    clinics: async () => ({ items: [] }),
    tasks: async (query: URLSearchParams): Promise<ClinicTaskList | undefined> => {
      calls.push(query.toString());
      if (query.has('q') && refuseSearch) return undefined;
      const since = query.get('since');
      const selections = since === null ? [SELECTED] : [SELECTED].filter((found) => found.lastModified >= since);
      return { total: 2, counts: { new: 1, answered: 0, selected: 1, cancelled: 0 }, items: query.get('state') === 'selected' ? selections : [OPEN, SELECTED] };
    },
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
    .use('/inbox', listRoutes(context))
    .use(jsonErrorHandler(silentLogger()));
  const memoryOf = (answer: request.Response) => String(answer.headers['set-cookie'] ?? '').match(/inbox_list=([^;]+)/)?.[1];

  beforeEach(() => {
    calls = [];
    refuseSearch = false;
  });

  it('asks the API for the order, links the headers, and puts new selections on top with the notice', async () => {
    const page = await request(inbox).get('/inbox/tasks?sort=occurrence');
    expect(page.status).toBe(200);
    expect(calls).toEqual(['_count=250&_sort=occurrence', expect.stringMatching(/^state=selected&since=.*&_count=50$/)]);
    expect(page.text).toContain('aria-sort="ascending"><a class="sort-link" href="/inbox/tasks?sort=-occurrence"');
    expect(page.text).toContain('1 neue Auswahl: Patient wird aufgenommen');
    expect(page.text.indexOf(SELECTED.id)).toBeLessThan(page.text.indexOf(OPEN.id));
    // Shown once: the memory says when.
    calls = [];
    const again = await request(inbox)
      .get('/inbox/tasks?sort=occurrence')
      .set('cookie', `inbox_list=${memoryOf(page)}`);
    expect(again.text).not.toContain('neue Auswahl');
  });

  it('keeps a search out of the address, and goes back from a request to the list as it was left', async () => {
    const left = await request(inbox).get('/inbox/tasks?filter=new&sort=-authored');
    const searched = await request(inbox)
      .post('/inbox/tasks/search')
      .set('cookie', `inbox_list=${memoryOf(left)}`)
      .type('form')
      .send({ q: 'Koxarthrose', filter: 'new', sort: '-authored' });
    expect(searched.status).toBe(303);
    expect(searched.headers.location).toBe('/inbox/tasks?filter=new&sort=-authored');
    expect(memoryOf(searched)).not.toMatch(/Koxarthrose/);
    // Typed, or from the list's own links: as addressed. From a request's page of the inbox: as it was left.
    expect(
      (
        await request(inbox)
          .get('/inbox/tasks')
          .set('cookie', `inbox_list=${memoryOf(searched)}`)
      ).status,
    ).toBe(200);
    const restored = await request(inbox)
      .get('/inbox/tasks')
      .set('cookie', `inbox_list=${memoryOf(searched)}`)
      .set('host', 'inbox.test')
      .set('referer', `http://inbox.test/inbox/tasks/${OPEN.id}`);
    expect([restored.status, restored.headers.location]).toEqual([303, '/inbox/tasks?filter=new&sort=-authored']);
    calls = [];
    const shown = await request(inbox)
      .get('/inbox/tasks?filter=new&sort=-authored')
      .set('cookie', `inbox_list=${memoryOf(searched)}`);
    expect(calls).toEqual(['_count=250&state=new&_sort=-authored&q=Koxarthrose']);
    expect(shown.text).toContain('Suche „Koxarthrose“');
  });

  it('refuses a search of two lines, and drops one the API refuses so that the link back works', async () => {
    expect((await request(inbox).post('/inbox/tasks/search').type('form').send({ q: 'a\nb' })).status).toBe(400);
    const searched = await request(inbox).post('/inbox/tasks/search').type('form').send({ q: 'Hypertonie' });
    refuseSearch = true;
    const refused = await request(inbox)
      .get('/inbox/tasks')
      .set('cookie', `inbox_list=${memoryOf(searched)}`);
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('zu viele Anfragen');
    calls = [];
    const after = await request(inbox)
      .get('/inbox/tasks')
      .set('cookie', `inbox_list=${memoryOf(refused)}`);
    expect(after.status).toBe(200);
    expect(calls[0]).toBe('_count=250');
  });
});
