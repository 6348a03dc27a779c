import express from 'express';
import { SignJWT } from 'jose';
import request from 'supertest';
import type { TaskWorkspace } from '@bedrequest/contracts';
import { jsonErrorHandler } from '@bedrequest/http';
import { silentLogger } from '@bedrequest/testing';
import { CsrfTokens } from '../session/csrf';
import { Formats } from './format';
import type { InboxApi } from './inbox-api';
import type { WorkspaceChange, WorkspaceResult } from './workspace-api';
import { ClinicRecords, type InboxContext } from './inbox-context';
import { de } from './texts.de';
import { workspacePanelFor, workspaceRoutes } from './workspace-routes';

const A = '510000001';
const TASK_ID = '5a0c6f5e-4c57-4e0a-9a51-0d2a1b6f1c11';
const TOM = '8d1f7a52-0a0e-4b7e-9f55-111111111111';
const LEA = '8d1f7a52-0a0e-4b7e-9f55-222222222222';

/**
 * The request's workspace panel and its forms against a stand-in for the public API (InboxApi): the
 * one button that fits who has the request, the notes escaped, the changes asked of the API and the
 * redirect back (post/redirect/get) with a word for the outcome, never the note. The API itself runs
 * against the real services in tools/e2e/clinic-workspace.int.spec.ts.
 */
describe("a request's workspace in the inbox", () => {
  let workspace: TaskWorkspace;
  let changes: WorkspaceChange[];
  let answer: WorkspaceResult | undefined;
  let me: string;

  const api = {
    workspaceFor: () => ({
      read: async () => workspace,
      change: async (_taskId: string, change: WorkspaceChange): Promise<WorkspaceResult> => {
        changes.push(change);
        return answer ?? { status: 200, workspace };
      },
    }),
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
  const tokenOf = (user: string) =>
    new SignJWT({ role: 'clinic', ik: [A], act: { sub: user, name: 'x' } }).setProtectedHeader({ alg: 'HS256' }).setSubject('party-1').sign(new Uint8Array(32));
  const inbox = express()
    .use(express.urlencoded({ extended: false }))
    .use(async (_req, res, next) => {
      res.locals.inboxSession = { id: 'session-1', accessToken: await tokenOf(me), principal: { partyId: 'party-1', role: 'clinic', ikNumbers: [A] } };
      next();
    })
    .get('/tasks/:taskId', async (req, res) => {
      res.type('html').send((await workspacePanelFor(context, req, res, String(req.params.taskId), Number(req.query.version) || undefined)).markup);
    })
    .use(workspaceRoutes(context))
    .use(jsonErrorHandler(silentLogger()));

  beforeEach(() => {
    workspace = { taskId: TASK_ID, version: 2, seen: false, internalNotes: [] };
    changes = [];
    answer = undefined;
    me = TOM;
  });

  it('offers to take a request nobody has, and says the page was seen in the same call', async () => {
    const page = await request(inbox).get(`/tasks/${TASK_ID}?version=2`);
    expect(page.status).toBe(200);
    expect(changes).toEqual([{ kind: 'seen', version: 2 }]);
    expect(page.text).toContain(de.workspace.nobody);
    expect(page.text).toContain('name="action" value="take"');
    expect(page.text).toContain('name="_csrf"');
    expect(page.text).toContain(de.workspace.noNotes);
  });

  it("shows who has it: one's own with a release, a colleague's by name with a take-over", async () => {
    workspace = { ...workspace, assignee: { user: LEA, name: 'Lea Wolf', since: '2026-12-06T09:42:00Z' } };
    const colleagues = await request(inbox).get(`/tasks/${TASK_ID}`);
    expect(colleagues.text).toContain('In Bearbeitung: Lea Wolf seit 06.12.2026, 10:42');
    expect(colleagues.text).toContain('name="action" value="take-over"');
    expect(colleagues.text).toContain(de.workspace.takeOver('Lea Wolf'));

    me = LEA;
    const own = await request(inbox).get(`/tasks/${TASK_ID}`);
    expect(own.text).toContain(de.workspace.takenByYou('06.12.2026, 10:42'));
    expect(own.text).toContain('name="action" value="release"');
    expect(own.text).not.toContain('value="take-over"');
  });

  it('lists the internal notes oldest first with time and author, escaped', async () => {
    workspace = {
      ...workspace,
      internalNotes: [
        { id: 'a1b2c3d4-0000-4000-8000-000000000001', time: '2026-12-06T09:00:00Z', author: { user: TOM, name: 'Tom Becker' }, text: 'Rollator <b>nötig</b>' },
        { id: 'a1b2c3d4-0000-4000-8000-000000000002', time: '2026-12-06T09:30:00Z', author: { user: LEA }, text: 'Rückruf erledigt' },
      ],
    };
    const page = await request(inbox).get(`/tasks/${TASK_ID}`);
    expect(page.text).toContain('Rollator &lt;b&gt;nötig&lt;/b&gt;');
    expect(page.text.indexOf('Rollator')).toBeLessThan(page.text.indexOf('Rückruf erledigt'));
    expect(page.text).toContain('06.12.2026, 10:00, Tom Becker');
    expect(page.text).toContain(`06.12.2026, 10:30, ${de.workspace.someone}`);
  });

  it('takes, takes over and releases, then redirects back to the request with the outcome', async () => {
    const take = await request(inbox).post(`/tasks/${TASK_ID}/assignee`).type('form').send({ action: 'take' });
    expect([take.status, take.headers.location]).toEqual([303, `/inbox/tasks/${TASK_ID}?workspace=taken#workspace`]);
    await request(inbox).post(`/tasks/${TASK_ID}/assignee`).type('form').send({ action: 'take-over' });
    await request(inbox).post(`/tasks/${TASK_ID}/assignee`).type('form').send({ action: 'release' });
    expect(changes).toEqual([{ kind: 'take', takeOver: false }, { kind: 'take', takeOver: true }, { kind: 'release' }]);

    answer = { status: 409, message: 'a colleague has taken this request' };
    const held = await request(inbox).post(`/tasks/${TASK_ID}/assignee`).type('form').send({ action: 'take' });
    expect(held.headers.location).toBe(`/inbox/tasks/${TASK_ID}?workspace=held#workspace`);
    const page = await request(inbox).get(`/tasks/${TASK_ID}?workspace=held`);
    expect(page.text).toContain(de.workspace.heldMeanwhile);
  });

  it('adds a note and never puts its text into the address', async () => {
    const added = await request(inbox).post(`/tasks/${TASK_ID}/internal-notes`).type('form').send({ text: '  Rollator nötig  ' });
    expect([added.status, added.headers.location]).toEqual([303, `/inbox/tasks/${TASK_ID}?workspace=note-added#workspace`]);
    expect(changes).toEqual([{ kind: 'note', text: 'Rollator nötig' }]);

    const empty = await request(inbox).post(`/tasks/${TASK_ID}/internal-notes`).type('form').send({ text: '   ' });
    expect(empty.headers.location).toBe(`/inbox/tasks/${TASK_ID}?workspace=note-empty#workspace`);
    const long = await request(inbox)
      .post(`/tasks/${TASK_ID}/internal-notes`)
      .type('form')
      .send({ text: 'x'.repeat(2001) });
    expect(long.headers.location).toBe(`/inbox/tasks/${TASK_ID}?workspace=note-too-long#workspace`);
    expect(changes).toHaveLength(1);
  });

  it('answers 404 for a Task the clinic may not see', async () => {
    answer = { status: 404, message: 'no such Task' };
    expect((await request(inbox).post(`/tasks/${TASK_ID}/assignee`).type('form').send({ action: 'take' })).status).toBe(404);
    expect((await request(inbox).post('/tasks/not-a-task/internal-notes').type('form').send({ text: 'x' })).status).toBe(404);
  });
});
