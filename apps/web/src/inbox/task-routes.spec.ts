import express from 'express';
import request from 'supertest';
import type { ClinicDocumentList, DocumentBundle, FhirTask, RequestVersion, RequestVersionList, TaskHistory } from '@bedrequest/contracts';
import { admissionRequestBundle, documentBundle, fhirTask } from '@bedrequest/fhir-model/testing';
import { jsonErrorHandler } from '@bedrequest/http';
import { silentLogger } from '@bedrequest/testing';
import { CsrfTokens } from '../session/csrf';
import { Formats } from './format';
import { memoryAnswerDrafts, type AnswerDrafts } from './answer-drafts';
import { answerSentNotice } from './answer-steps';
import type { Html } from './html';
import type { AnswerResult, InboxApi } from './inbox-api';
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
  /** Every version the stand-in holds, oldest first, and every document; it answers the page asked for. */
  let versions: RequestVersion[];
  let documents: DocumentBundle[];
  let stored: unknown[];
  /** The Task the stand-in answers; a plain one of clinic A when undefined. */
  let shownTask: FhirTask | undefined;
  /** The Task's ETag the stand-in answers, and what its answer endpoint answers. */
  let etag: string;
  let answered: AnswerResult;
  let answers: { businessStatus: string; ifMatch: string | undefined }[];
  /** The open requests the list answers, in its order. */
  let open: string[];
  /** The clinic's history of the Task the stand-in answers; none read when undefined (a gateway without it). */
  let timeline: TaskHistory | undefined;
  const drafts: AnswerDrafts = memoryAnswerDrafts();

  const pageOf = <T>(all: T[], page: URLSearchParams) => {
    const offset = Number(page.get('_offset') ?? 0);
    return { total: all.length, items: all.slice(offset, offset + Number(page.get('_count'))) };
  };
  const api = {
    task: async (taskId: string) => ({ task: shownTask ?? fhirTask({ id: taskId, clinicIk: A }), etag }),
    answer: async (_taskId: string, body: { businessStatus: string }, ifMatch: string | undefined) => {
      answers.push({ businessStatus: body.businessStatus, ifMatch });
      return answered;
    },
    versions: async (_taskId: string, page: URLSearchParams): Promise<RequestVersionList> => {
      calls.push(`versions?${page}`);
      return pageOf(page.get('_sort') === '-version' ? [...versions].reverse() : versions, page);
    },
    documents: async (_taskId: string, page: URLSearchParams): Promise<ClinicDocumentList> => {
      calls.push(`documents?${page}`);
      return pageOf(documents, page);
    },
    document: async (_taskId: string, n: number) => {
      calls.push(`document ${n}`);
      return stored[n];
    },
    history: async () => timeline,
    referrer: async () => ({ name: 'Klinikum <Nord>', contactName: 'Sozialdienst, Frau Kaiser', contactPhone: '+49 (40) 1234-567' }),
    clinics: async () => ({ items: [] }),
    tasks: async (query: URLSearchParams) => {
      calls.push(`tasks?${query}`);
      return { total: open.length, counts: {}, items: open.map((id) => ({ id })) };
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
    // The list's stand-in: its page shows the notice of an answer sent; `?restore=1` redirects as the list does to where it was left.
    .use(answerSentNotice(context, drafts))
    .get('/tasks', (req, res) =>
      req.query.restore ? res.redirect(303, '/inbox/tasks?filter=new') : res.type('html').send((res.locals.inboxNotice as Html | undefined)?.markup ?? ''),
    )
    .use(taskRoutes(context, drafts))
    .use(jsonErrorHandler(silentLogger()));

  beforeEach(() => {
    calls = [];
    versions = [version(1), version(2)];
    documents = [];
    stored = [];
    shownTask = undefined;
    etag = 'W/"2-4-abc"';
    answered = { status: 200, task: fhirTask({ id: TASK_ID, clinicIk: A, businessStatus: 'accepted' }) };
    answers = [];
    open = [];
    timeline = undefined;
  });
  const versionsShown = (text: string) =>
    [...text.slice(text.indexOf('<ol class="history"')).matchAll(/<li data-version="(\d+)"/g)].map((match) => Number(match[1]));
  const links = (text: string, rel: 'prev' | 'next') =>
    [...text.matchAll(new RegExp(`rel="${rel}" href="([^"]+)">([^<]+)<`, 'g'))].map((match) => `${match[2]}: ${match[1]}`);

  it('asks for the newest versions (one more than it shows, to compare the oldest shown) and the first 20 documents, and compares each version with the one before it', async () => {
    const page = await request(inbox).get(`/tasks/${TASK_ID}`);

    expect(page.status).toBe(200);
    expect(calls).toEqual(['versions?_count=11&_sort=-version', 'documents?_count=20']);
    expect(versionsShown(page.text)).toEqual([2, 1]);
    const history = page.text.slice(page.text.indexOf('<ol class="history"'));
    expect(history).toContain('Fassung 2');
    expect(history).toContain(de.task.historyFirst);
    expect(page.text).not.toContain('class="pager"');
  });

  it('names who of the clinic wrote each of its notes, an automatic answer as such, the name escaped as every text', async () => {
    const time = '2026-11-22T10:00:00.000Z';
    const person = { type: 'Practitioner' as const, identifier: { system: 'https://bedrequest.example.org/fhir/sid/user', value: 'user-1' } };
    shownTask = {
      ...fhirTask({ id: TASK_ID, clinicIk: A, businessStatus: 'accepted' }),
      note: [
        { text: 'Vor dem Update', time },
        { text: 'Bitte Befund nachreichen', time, authorReference: { ...person, display: '<img src=x onerror=alert(1)> Jana' } },
        {
          text: 'Freie Betten laut Meldung',
          time,
          authorReference: { type: 'Organization' as const, identifier: { system: 'http://fhir.de/sid/arge-ik/iknr', value: A } },
        },
        { text: 'Ohne Anzeigenamen', time, authorReference: person },
      ],
    };

    const page = await request(inbox).get(`/tasks/${TASK_ID}`);

    const notes = page.text.slice(page.text.indexOf('<ol class="notes">'));
    const items = [...notes.slice(0, notes.indexOf('</ol>')).matchAll(/<li>(.*?)<\/li>/gs)].map((match) =>
      match[1]!.replace(/<time[^>]*>.*?<\/time>/, '<time>'),
    );
    expect(items).toEqual([
      '<time>: Vor dem Update',
      '<time> <span class="note-author">von &lt;img src=x onerror=alert(1)&gt; Jana</span>: Bitte Befund nachreichen',
      '<time> <span class="note-author">automatisch</span>: Freie Betten laut Meldung',
      '<time>: Ohne Anzeigenamen',
    ]);
    expect(page.text).not.toContain('<img');
  });

  it("puts each answer's note under that answer with who gave it, from the clinic's history of the Task", async () => {
    const tom = { type: 'Practitioner' as const, user: 'u-tom', display: 'Tom Becker' };
    const bea = { type: 'Practitioner' as const, user: 'u-bea', display: 'Bea <b>Beispiel</b>' };
    shownTask = { ...fhirTask({ id: TASK_ID, clinicIk: A, businessStatus: 'declined' }) };
    timeline = {
      total: 5,
      items: [
        { kind: 'answer', at: '2026-11-03T09:00:00Z', businessStatus: 'declined', note: 'Kein Bett frei', author: bea },
        { kind: 'overdue', at: '2026-11-02T12:00:30Z', deadline: '2026-11-02T12:00:00Z' },
        { kind: 'answer', at: '2026-11-02T09:00:00Z', businessStatus: 'query', note: 'Röntgenbefund?', author: tom },
        { kind: 'answer', at: '2026-11-01T09:00:00Z', businessStatus: 'accepted', author: { type: 'Organization', ik: A } },
        { kind: 'request', at: '2026-11-01T08:00:00Z', action: 'answer-requested', status: 'requested', version: 1 },
      ],
    };

    const page = await request(inbox).get(`/tasks/${TASK_ID}`);

    const list = page.text.slice(page.text.indexOf('<ol class="answer-history"'), page.text.indexOf('</ol>', page.text.indexOf('<ol class="answer-history"')));
    const entries = [...list.matchAll(/<li data-kind="answer" data-answer="([^"]+)">(.*?)<\/li>/gs)].map((match) => [
      match[1],
      match[2]!.replace(/<time[^>]*>.*?<\/time>/, '<time>'),
    ]);
    expect(entries).toEqual([
      [
        'declined',
        '<p class="answer-head"><time>: <strong>Absage</strong> <span class="note-author">von Bea &lt;b&gt;Beispiel&lt;/b&gt;</span></p><p class="answer-note">Kein Bett frei</p>',
      ],
      [
        'query',
        '<p class="answer-head"><time>: <strong>Rückfrage</strong> <span class="note-author">von Tom Becker</span></p><p class="answer-note">Röntgenbefund?</p>',
      ],
      [
        'accepted',
        `<p class="answer-head"><time>: <strong>Zusage</strong> <span class="note-author">automatisch</span></p><p class="answer-note meta">${de.timeline.noNote}</p>`,
      ],
    ]);
    // The overdue mark stands between the answers it came between, with the deadline that passed.
    expect([...list.matchAll(/<li data-kind="([a-z]+)"/g)].map((match) => match[1])).toEqual(['answer', 'overdue', 'answer', 'answer']);
    expect(list).toMatch(/<li data-kind="overdue">.*<strong>Antwortfrist verstrichen<\/strong>.*Die Antwort war erbeten bis 02\.11\.2026, 13:00/s);
    expect(page.text).not.toContain('<ol class="notes">');
  });

  it('says the documents reopened the request after "Weitere Daten erforderlich", and lists the delivery among the versions', async () => {
    shownTask = { ...fhirTask({ id: TASK_ID, clinicIk: A, businessStatus: 'more-data-required' }), status: 'requested' };
    timeline = {
      total: 2,
      items: [
        { kind: 'documents', at: '2026-11-05T09:00:00Z', count: 2, kinds: ['Arztbrief', 'Röntgen'], reopened: true },
        {
          kind: 'answer',
          at: '2026-11-04T09:00:00Z',
          businessStatus: 'more-data-required',
          note: 'Bitte Arztbrief',
          author: { type: 'Practitioner', user: 'u' },
        },
      ],
    };

    const page = await request(inbox).get(`/tasks/${TASK_ID}`);

    expect(page.text).toContain(`<span class="status status-requested status-reopened">${de.timeline.reopenedStatus}</span>`);
    expect(page.text).toContain('id="documents-supplied"');
    const history = page.text.slice(page.text.indexOf('<ol class="history"'));
    // Newest first: the delivery (5 Nov) above version 2 (2 Nov) and version 1.
    expect([...history.matchAll(/<li data-(version|kind)="([^"]+)"/g)].map((match) => match[2])).toEqual(['documents', '2', '1']);
    expect(history).toContain('2 Dokumente: Arztbrief, Röntgen');
    expect(history).toContain(de.timeline.documentsReopened);

    // Once the clinic answered again, the request is no longer marked.
    timeline.items.unshift({ kind: 'answer', at: '2026-11-06T09:00:00Z', businessStatus: 'accepted', author: { type: 'Practitioner', user: 'u' } });
    shownTask = fhirTask({ id: TASK_ID, clinicIk: A, businessStatus: 'accepted' });
    expect((await request(inbox).get(`/tasks/${TASK_ID}`)).text).not.toContain(de.timeline.reopenedStatus);
  });

  it('pages through the history, newest first, while the request shown stays its newest version', async () => {
    versions = Array.from({ length: 13 }, (_, n) => version(n + 1));

    const first = await request(inbox).get(`/tasks/${TASK_ID}`);
    expect(versionsShown(first.text)).toEqual([13, 12, 11, 10, 9, 8, 7, 6, 5, 4]);
    // The oldest shown is compared with the one before it, which the page does not show.
    const oldestShown = first.text.slice(first.text.indexOf('<li data-version="4"'));
    expect(oldestShown.slice(0, oldestShown.indexOf('</li>'))).toContain('Fassung 3');
    expect(first.text).not.toContain(de.task.historyFirst);
    expect(first.text).toContain('Seite 1 von 2');
    expect(links(first.text, 'next')).toEqual([`Ältere Versionen: /inbox/tasks/${TASK_ID}?history=2#history-heading`]);

    calls = [];
    const second = await request(inbox).get(`/tasks/${TASK_ID}?history=2`);
    expect(calls).toEqual(['versions?_count=2&_sort=-version', 'versions?_count=11&_offset=10&_sort=-version', 'documents?_count=20']);
    expect(versionsShown(second.text)).toEqual([3, 2, 1]);
    expect(second.text).toContain(de.task.historyFirst);
    expect(second.text).toContain('data-version="13" id="task-title"');
    expect(second.text).toContain('Seite 2 von 2');
    expect(links(second.text, 'prev')).toEqual([`Neuere Versionen: /inbox/tasks/${TASK_ID}#history-heading`]);
    expect(links(second.text, 'next')).toEqual([]);
  });

  it("pages through the documents, each attachment by its document's position among all, keeping the history's page", async () => {
    documents = Array.from({ length: 23 }, (_, n) => document([`nr ${n + 1}`]));
    documents[1] = document(['zwei', 'drei'], '2026-11-21T10:00:00Z');
    const attachmentLinks = (text: string) =>
      [...text.matchAll(/href="(\/inbox\/tasks\/[^"?#]+\/attachments\/[^"?#]+)"/g)].map((match) => match[1]!.replace(`/inbox/tasks/${TASK_ID}`, ''));

    const first = await request(inbox).get(`/tasks/${TASK_ID}`);
    expect(attachmentLinks(first.text).slice(0, 4)).toEqual([
      '/documents/0/attachments/0',
      '/documents/1/attachments/0',
      '/documents/1/attachments/1',
      '/documents/2/attachments/0',
    ]);
    expect(attachmentLinks(first.text)).toHaveLength(21);
    expect(first.text).toContain('Dokument 2, Anhang 2');
    expect(links(first.text, 'next')).toEqual([`Weitere Dokumente: /inbox/tasks/${TASK_ID}?documents=2#documents-heading`]);

    calls = [];
    const second = await request(inbox).get(`/tasks/${TASK_ID}?history=1&documents=2`);
    expect(calls).toEqual(['versions?_count=11&_sort=-version', 'documents?_count=20&_offset=20']);
    expect(attachmentLinks(second.text)).toEqual(['/documents/20/attachments/0', '/documents/21/attachments/0', '/documents/22/attachments/0']);
    expect(second.text).toContain('Befund nr 23');
    expect(links(second.text, 'prev')).toEqual([`Vorherige Dokumente: /inbox/tasks/${TASK_ID}#documents-heading`]);

    versions = Array.from({ length: 13 }, (_, n) => version(n + 1));
    const both = await request(inbox).get(`/tasks/${TASK_ID}?history=2&documents=2`);
    expect(links(both.text, 'prev')).toEqual([
      `Vorherige Dokumente: /inbox/tasks/${TASK_ID}?history=2#documents-heading`,
      `Neuere Versionen: /inbox/tasks/${TASK_ID}?documents=2#history-heading`,
    ]);
  });

  it('shows a page past the last as empty, with a link back to the last', async () => {
    documents = [document(['eins'])];

    const page = await request(inbox).get(`/tasks/${TASK_ID}?documents=5`);

    expect(page.status).toBe(200);
    expect(page.text).toContain(de.task.noDocuments);
    expect(links(page.text, 'prev')).toEqual([`Vorherige Dokumente: /inbox/tasks/${TASK_ID}#documents-heading`]);
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

  it('opens with the request number, the summary and the answer beside it; the print view has neither navigation nor form', async () => {
    documents = [document(['eins'])];
    const page = await request(inbox).get(`/tasks/${TASK_ID}`);

    expect(page.text).toContain('Anfrage-Nr. <strong id="request-number">5A0C-6F5E</strong>');
    const top = page.text.slice(page.text.indexOf('<div class="task-top with-answer">'), page.text.indexOf('id="section-patient"'));
    expect(top).toContain('id="answer-form"');
    const summary = Object.fromEntries([...top.matchAll(/data-summary="(\w+)"><dt>[^<]*<\/dt><dd>(.*?)<\/dd><\/div>/g)].map((match) => [match[1], match[2]]));
    expect(summary).toMatchObject({
      patient: 'weiblich, 70 Jahre',
      diagnosis: 'S72.01 Schenkelhalsfraktur: Intrakapsulär (18.11.2026)',
      admission: '01.12.2026',
      department: 'Orthopädie (2300)',
      insurer: 'AOK Nordost (IK 109519005), gesetzlich (GKV)',
      mobility: de.task.summaryMobilityNone,
      requester: 'Akutklinik Mitte (IK 260000001)',
      // The referrer party's contact, escaped like every text, its number a link to dial.
      contact:
        '<span class="contact-party">Klinikum &lt;Nord&gt;</span> · <span class="contact-name">Sozialdienst, Frau Kaiser</span> · <span class="contact-phone">Tel. <a href="tel:+49401234567">+49 (40) 1234-567</a></span>',
    });
    expect(summary['changed']).toMatch(/mit Version 2 vom .*: Hinweise$/);
    // A document by its kind, not its MIME type.
    expect(page.text).toContain('<span class="meta">(Text, 4 B');
    expect(page.text).toContain(`href="/inbox/tasks/${TASK_ID}/print"`);

    const print = await request(inbox).get(`/tasks/${TASK_ID}/print`);
    expect(print.status).toBe(200);
    expect(print.text).toContain('id="request-number">5A0C-6F5E');
    expect(print.text).toContain('data-summary="diagnosis"');
    expect(print.text).toContain('Tel. <a href="tel:+49401234567">');
    expect(print.text).not.toMatch(/<nav|<form|site-header|Weiter zur Bestätigung/);
  });

  describe('the answer, on the Task as the person saw it', () => {
    const hidden = (text: string, name: string) => text.match(new RegExp(`name="${name}" value="([^"]*)"`))?.[1];
    const post = (fields: Record<string, string>) => request(inbox).post(`/tasks/${TASK_ID}/answer`).type('form').send(fields);
    const seen = { tag: 'W/"2-4-abc"', version: '2' };

    it("carries the Task's tag and the version shown from the request's page through the confirmation, which names the date and version answered", async () => {
      const page = await request(inbox).get(`/tasks/${TASK_ID}`);
      expect(hidden(page.text, 'tag')).toBe('W/&quot;2-4-abc&quot;');
      expect(hidden(page.text, 'version')).toBe('2');

      // Post/redirect/get: the answer waits in the session, the confirmation is a page of its own, its address names no answer.
      const posted = await post({ ...seen, businessStatus: 'accepted', note: 'Zimmer 12 für Frau Muster' });
      expect(posted.status).toBe(303);
      expect(posted.headers.location).toBe(`/inbox/tasks/${TASK_ID}/confirm`);
      const confirmation = await request(inbox).get(`/tasks/${TASK_ID}/confirm`);

      expect(confirmation.status).toBe(200);
      expect(confirmation.text).toContain('Zimmer 12 für Frau Muster');
      expect(confirmation.text).toMatch(/data-field="request-number"><dt>Anfrage-Nr\.<\/dt><dd>5A0C-6F5E<\/dd>/);
      expect(confirmation.text).toContain(de.answer.confirmTitle);
      expect(confirmation.text).toMatch(/data-field="request.admission"><dt>Gewünschtes Aufnahmedatum<\/dt><dd>01\.12\.2026<\/dd>/);
      expect(confirmation.text).toMatch(/data-field="answered-version"><dt>Beantwortet wird<\/dt><dd>Version 2 vom /);
      expect(hidden(confirmation.text, 'tag')).toBe('W/&quot;2-4-abc&quot;');
      expect(answers).toEqual([]);
    });

    it('sends the answer with the tag as If-Match, then goes to the list, which says so once; the confirmation is gone', async () => {
      await post({ ...seen, businessStatus: 'accepted', note: '' });
      const sent = await post({ ...seen, businessStatus: 'accepted', note: '', step: 'confirm' });

      expect(sent.status).toBe(303);
      expect(sent.headers.location).toBe('/inbox/tasks');
      expect(answers).toEqual([{ businessStatus: 'accepted', ifMatch: 'W/"2-4-abc"' }]);
      // The list's redirect to where it was left keeps the notice for the page it redirects to; that page shows it once.
      expect((await request(inbox).get('/tasks?restore=1')).status).toBe(303);
      const list = await request(inbox).get('/tasks');
      expect(list.text).toContain('Ihre Antwort „Zusage“ wurde gesendet.');
      expect(list.text).toContain(`<a class="button" href="/inbox/tasks/next?after=${TASK_ID}" id="next-open">Nächste offene Anfrage</a>`);
      expect((await request(inbox).get('/tasks')).text).toBe('');
      // The browser's Back reaches the confirmation's address: without its draft, the request's page.
      const back = await request(inbox).get(`/tasks/${TASK_ID}/confirm`);
      expect([back.status, back.headers.location]).toEqual([303, `/inbox/tasks/${TASK_ID}`]);
    });

    it('opens the next open request in the list, past the one just answered; the list when none is left', async () => {
      const other = '7b1d7a6f-5d68-4f1b-8b62-1e3b2c7a2d22';
      open = [TASK_ID, other];
      const next = await request(inbox).get(`/tasks/next?after=${TASK_ID}`);
      expect([next.status, next.headers.location]).toEqual([303, `/inbox/tasks/${other}`]);
      expect(calls).toEqual(['tasks?state=new&_count=2']);

      open = [TASK_ID];
      const none = await request(inbox).get(`/tasks/next?after=${TASK_ID}`);
      expect([none.status, none.headers.location]).toEqual([303, '/inbox/tasks']);
      expect((await request(inbox).get('/tasks')).text).toContain('Keine weitere offene Anfrage.');
    });

    it('shows, when the API refuses the answer as out of date (412), the new version with what changed and the answer now with who gave it', async () => {
      const time = '2026-11-22T10:00:00.000Z';
      answered = { status: 412, message: 'the Task changed' };
      versions = [
        version(1),
        version(2),
        {
          ...version(3),
          bundle: admissionRequestBundle({
            requestIdentifier: identifier,
            performerIks: [A],
            notes: ['Fassung 2'],
            occurrenceDate: '2027-01-15',
          }) as unknown as RequestVersion['bundle'],
        },
      ];
      etag = 'W/"3-6-def"';
      shownTask = {
        ...fhirTask({ id: TASK_ID, clinicIk: A, businessStatus: 'declined', at: time }),
        note: [
          {
            text: 'Kein Bett',
            time,
            authorReference: {
              type: 'Practitioner',
              identifier: { system: 'https://bedrequest.example.org/fhir/sid/user', value: 'u-2' },
              display: 'Bea Beispiel',
            },
          },
        ],
      };

      const refused = await post({ ...seen, businessStatus: 'accepted', note: 'Gern', step: 'confirm' });

      expect(refused.status).toBe(412);
      const notice = refused.text.slice(refused.text.indexOf('id="answer-stale"'), refused.text.indexOf('</div>', refused.text.indexOf('id="answer-stale"')));
      expect(notice).toContain(de.answer.staleTitle);
      expect(notice).toContain('Version 2 → Version 3');
      expect(notice).toMatch(/Gewünschtes Aufnahmedatum<\/strong>: .*01\.12\.2026.*15\.01\.2027/);
      expect(notice).toContain('Aktuelle Antwort Ihrer Klinik: „Absage“ <span class="note-author">von Bea Beispiel</span>');
      // The form keeps the person's answer, on the Task as it is now.
      expect(refused.text).toMatch(/id="answer-accepted" name="businessStatus" value="accepted"[^>]* checked/);
      expect(hidden(refused.text, 'tag')).toBe('W/&quot;3-6-def&quot;');
      expect(hidden(refused.text, 'version')).toBe('3');
    });

    it('shows what changed instead of the confirmation when the Task changed since the page was read', async () => {
      etag = 'W/"2-5-xyz"';
      shownTask = fhirTask({ id: TASK_ID, clinicIk: A, businessStatus: 'declined' });

      const page = await post({ ...seen, businessStatus: 'accepted', note: '' });

      expect(page.status).toBe(409);
      expect(page.text).not.toContain(de.answer.confirmTitle);
      expect(page.text).toContain('Aktuelle Antwort Ihrer Klinik: „Absage“');
      expect(page.text).not.toContain('Version 2 →');
      expect(hidden(page.text, 'tag')).toBe('W/&quot;2-5-xyz&quot;');
    });
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
