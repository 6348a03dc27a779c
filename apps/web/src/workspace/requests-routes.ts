import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { FhirTask } from '@bedrequest/contracts';
import { formOfBundle } from '@bedrequest/fhir-model';
import type { HospitalApi } from './hospital-api';
import { HttpError } from '@bedrequest/http';
import { html, type Html } from '../inbox/html';
import { sendPage, sessionOf } from '../inbox/inbox-context';
import { newRequestTexts } from './new-request.texts.de';
import { changesTexts } from './changes.texts.de';
import { documentsTexts } from './documents.texts.de';
import { moreClinicsTexts } from './more-clinics.texts.de';
import { ownDataTexts } from './own-data.texts.de';
import { selectTexts } from './select.texts.de';
import { workspaceDe } from './workspace.texts.de';
import { caseNumberSection } from './pages/case-number';
import { payerRecordSection } from './pages/payer-record';
import { payerRecordTexts } from './payer-record.texts.de';
import { berlinDateTime, berlinLocal } from './berlin-time';
import { sentRequestSection } from './pages/sent-request';
import { erasePage } from './pages/erase.page';
import { historySection } from './pages/request-history';
import { requestPage, requestParts } from './pages/request.page';
import { requestsPage, requestsParts } from './pages/requests.page';
import { clinicsOf, LIST_READ, placementOfTask } from './placement-reads';
import { PLACEMENT_STATES, placementsOf, requestOf, versionOf, type Placement } from './placements';
import { CASE_NUMBER } from './new-request-routes';
import { hospitalApiOf, workspacePageOf, type WorkspaceContext } from './workspace-context';

/** The list shows the requests changed within this many days. */
export const LIST_DAYS = 90;

/** What a step done on a request says once on its page (post/redirect/get: `?erased=1` etc.). */
const FLASHES: readonly [string, string][] = [
  ['erased', workspaceDe.hospital.erase.done],
  ['selected', selectTexts.done],
  ['revoked', changesTexts.revoke.done],
  ['withdrawn', changesTexts.withdraw.done],
  ['supplemented', newRequestTexts.supplement.done],
  ['caseNumber', ownDataTexts.caseNumber.saved],
  ['documents', documentsTexts.sent],
  ['moreClinics', moreClinicsTexts.done],
  ['readyForTransfer', payerRecordTexts.ready.saved],
];

/** What the list says once after a new request was sent (`?sent=`). */
const SENT: Record<string, { kind: 'success' | 'error'; message: string }> = {
  '1': { kind: 'success', message: newRequestTexts.sent },
  'without-case-number': { kind: 'error', message: ownDataTexts.caseNumber.notSaved },
};

/** The list's filter (`?filter=`); anything else shows them all. */
const Filter = z.enum(['all', ...PLACEMENT_STATES]).catch('all');

/**
 * The hospital's requests and each one's page (docs/workspace.md), read with the person's token
 * through the public Task search and read, as any referrer's software reads them: a Task id of
 * another party is not found (404), whatever the URL.
 */
export function requestsRoutes(context: WorkspaceContext): Router {
  const router = Router();
  const { texts, formats } = context;
  const notFound = () => new HttpError('not_found', texts.errors.notFound);

  const listView = async (req: Request, res: Response) => {
    const since = new Date(Date.now() - LIST_DAYS * 86_400_000).toISOString().slice(0, 10);
    const query = new URLSearchParams({ _lastUpdated: `ge${since}`, _count: String(LIST_READ) });
    const [{ tasks, more }, clinics] = await Promise.all([hospitalApiOf(context, req, res).tasks(query), clinicsOf(context, req, res)]);
    const filter = Filter.parse(req.query.filter);
    const placements = placementsOf(tasks);
    const caseNumbers = await caseNumbersOf(req, res, placements);
    return { placements, filter, clinics, truncated: more, formats, caseNumbers };
  };
  const caseNumbersOf = (req: Request, res: Response, placements: readonly Placement[]) =>
    hospitalApiOf(context, req, res)
      .referrerData()
      .caseNumbersOf(placements.map((placement) => requestOf(placement.tasks[0] as FhirTask)));
  const placementOf = (req: Request, res: Response) => placementOfTask(context, req, res);
  /** What the hospital last sent, read back; none once erased, or should the read fail (the page shows without it). */
  const sentOf = async (api: HospitalApi, identifier: string) => {
    const bundle = await api.readBack(identifier).catch(() => undefined);
    if (!bundle || bundle === 'erased') return undefined;
    try {
      return formOfBundle(bundle, { profileBase: context.profileBase });
    } catch {
      return undefined;
    }
  };
  /** What the page's script asks every few seconds: the changed parts, once the latest change is past `since`. */
  const updates = (res: Response, since: unknown, changedAt: string, parts: () => Record<string, Html>) => {
    res.json(since === changedAt ? { changedAt } : { changedAt, parts: Object.fromEntries(Object.entries(parts()).map(([id, part]) => [id, part.markup])) });
  };

  router.get('/requests', async (req, res) => {
    const [view, page] = await Promise.all([listView(req, res), workspacePageOf(context, req, res)]);
    sendPage(res, requestsPage(page, texts, view, SENT[String(req.query.sent)]));
  });

  // The search by the hospital's internal case number: posted, so that the number never stands in a URL.
  router.post('/requests/search', async (req, res) => {
    const typed = (req.body as Record<string, unknown>).caseNumber;
    const caseNumber = typeof typed === 'string' ? typed.trim() : '';
    if (!caseNumber) return res.redirect(303, '/workspace/requests');
    const api = hospitalApiOf(context, req, res);
    const identifiers = CASE_NUMBER.test(caseNumber) ? await api.referrerData().requestsWithCaseNumber(caseNumber) : [];
    const query = new URLSearchParams(identifiers.map((identifier): [string, string] => ['based-on', identifier]));
    query.set('_count', String(LIST_READ));
    const [{ tasks, more }, clinics, page] = await Promise.all([
      identifiers.length ? api.tasks(query) : { tasks: [], more: false },
      clinicsOf(context, req, res),
      workspacePageOf(context, req, res),
    ]);
    const placements = placementsOf(tasks);
    const view = { placements, filter: 'all' as const, clinics, truncated: more, formats, caseNumbers: await caseNumbersOf(req, res, placements) };
    sendPage(res, requestsPage(page, texts, { ...view, search: { caseNumber } }));
  });

  router.get('/requests/updates', async (req, res) => {
    const view = await listView(req, res);
    updates(res, req.query.since, versionOf(view.placements), () => requestsParts(texts, view));
  });

  /** A request's page; `refused`: an internal case number or a ready-for-transfer time refused, shown at its field. */
  const showRequest = async (req: Request, res: Response, refused?: { caseNumber?: string; readyAt?: string; message?: string }) => {
    const typed = refused?.caseNumber;
    const [{ placement, clinics }, page] = await Promise.all([placementOf(req, res), workspacePageOf(context, req, res)]);
    const [task] = placement.tasks;
    const api = hospitalApiOf(context, req, res);
    // Who of the hospital sent or changed it, which clinic answered (the audit trail); the page shows without it should it fail.
    const [changes, caseNumbers, sent, readyAt] = await Promise.all([
      task ? api.changes(requestOf(task)).catch(() => undefined) : undefined,
      caseNumbersOf(req, res, [placement]),
      task ? sentOf(api, requestOf(task)) : undefined,
      task ? api.referrerData().readyForTransfer(requestOf(task)) : undefined,
    ]);
    const history = changes && historySection(changes, sessionOf(res).principal.ikNumbers, clinics, texts, formats);
    const own = caseNumberSection({
      placementId: placement.id,
      caseNumber: caseNumbers.get(requestOf(task as FhirTask)),
      ...(typed === undefined ? {} : { typed, error: ownDataTexts.caseNumber.invalid }),
      csrfToken: page.signedIn?.csrfToken ?? '',
    });
    const record = payerRecordSection({
      placementId: placement.id,
      readyAt: berlinLocal(readyAt),
      readyAtText: formats.instant(readyAt),
      ...(refused?.readyAt === undefined ? {} : { typed: refused.readyAt, error: refused.message ?? payerRecordTexts.ready.invalid }),
      csrfToken: page.signedIn?.csrfToken ?? '',
    });
    const flash = FLASHES.find(([name]) => req.query[name] === '1')?.[1];
    const sentSection = sent && sentRequestSection(sent, clinics, texts, formats);
    sendPage(
      res,
      requestPage(page, texts, placement, clinics, formats, flash, html`${own}${record}${sentSection ?? ''}${history ?? ''}`),
      refused === undefined ? 200 : 400,
    );
  };

  router.get('/requests/:taskId', (req, res) => showRequest(req, res));

  // The hospital's internal case number (docs/workspace.md, "Interne Fallnummer"): empty removes it.
  router.post('/requests/:taskId/case-number', async (req, res) => {
    const typed = (req.body as Record<string, unknown>).caseNumber;
    const caseNumber = typeof typed === 'string' ? typed.trim() : '';
    if (caseNumber && !CASE_NUMBER.test(caseNumber)) return showRequest(req, res, { caseNumber });
    const { placement } = await placementOf(req, res);
    const refused = await hospitalApiOf(context, req, res)
      .referrerData()
      .setCaseNumber(requestOf(placement.tasks[0] as FhirTask), caseNumber || null);
    if (refused) return showRequest(req, res, { caseNumber });
    res.redirect(303, `/workspace/requests/${placement.id}?caseNumber=1`);
  });

  // When the patient was ready for transfer (docs/workspace.md, "Verlegungsbereit seit"): Berlin time, empty removes it.
  router.post('/requests/:taskId/ready-for-transfer', async (req, res) => {
    const typed = (req.body as Record<string, unknown>).readyAt;
    const local = typeof typed === 'string' ? typed.trim() : '';
    const readyAt = local ? berlinDateTime(local) : null;
    if (readyAt === undefined) return showRequest(req, res, { readyAt: local });
    const { placement } = await placementOf(req, res);
    const refused = await hospitalApiOf(context, req, res)
      .referrerData()
      .setReadyForTransfer(requestOf(placement.tasks[0] as FhirTask), readyAt);
    if (refused === 404) throw notFound();
    if (refused) return showRequest(req, res, { readyAt: local, ...(refused === 410 ? { message: payerRecordTexts.record.gone } : {}) });
    res.redirect(303, `/workspace/requests/${placement.id}?readyForTransfer=1`);
  });

  // Erasing the request's patient data (docs/workspace.md, "Patientendaten löschen"): a confirmation first.
  router.get('/requests/:taskId/erase', async (req, res) => {
    const [{ placement }, page] = await Promise.all([placementOf(req, res), workspacePageOf(context, req, res)]);
    sendPage(res, erasePage(page, texts, placement.id, page.signedIn?.csrfToken ?? ''));
  });

  router.post('/requests/:taskId/erase', async (req, res) => {
    const { placement } = await placementOf(req, res);
    const [task] = placement.tasks;
    if (!task || !(await hospitalApiOf(context, req, res).erase(requestOf(task)))) throw notFound();
    res.redirect(303, `/workspace/requests/${placement.id}?erased=1`);
  });

  router.get('/requests/:taskId/updates', async (req, res) => {
    const { placement, clinics } = await placementOf(req, res);
    updates(res, req.query.since, versionOf([placement]), () => requestParts(texts, placement, clinics, formats));
  });

  return router;
}
