import { Router } from 'express';
import { z } from 'zod';
import { HttpError } from '@bedrequest/http';
import { sendPage } from '../inbox/inbox-context';
import { errorPage } from '../inbox/pages/error.page';
import { payerRecordTexts } from './payer-record.texts.de';
import { hospitalApiOf, workspacePageOf, type WorkspaceContext } from './workspace-context';

/** `record.pdf` or `record.csv`: the two formats of the record (docs/api.md, "The record for the payer"). */
const Format = z.enum(['pdf', 'csv']);

/**
 * The record for the payer downloaded from a request's page (docs/workspace.md, "Nachweis für
 * Kostenträger"): `GET /requests/{taskId}/record.pdf|csv` fetches the signed file from the gateway
 * with the person's token and passes it on byte for byte, with the gateway's content type and file
 * name (no patient data in it) and `Cache-Control: no-store`. Another party's request is not found
 * (404), an erased one gone (410), each as the workspace's error page.
 */
export function recordRoutes(context: WorkspaceContext): Router {
  const router = Router();
  router.get('/requests/:taskId/record.:format', async (req, res) => {
    const format = Format.safeParse(req.params.format);
    if (!format.success) throw new HttpError('not_found', context.texts.errors.notFound);
    const record = await hospitalApiOf(context, req, res).referrerData().record(String(req.params.taskId), format.data);
    if (record === 404) throw new HttpError('not_found', context.texts.errors.notFound);
    if (record === 410) {
      const back = { href: `/workspace/requests/${String(req.params.taskId)}`, label: payerRecordTexts.record.back };
      return sendPage(res.set('cache-control', 'no-store'), errorPage(await workspacePageOf(context, req, res), payerRecordTexts.record.gone, back), 410);
    }
    res
      .status(200)
      .set('cache-control', 'no-store')
      .set('content-type', record.contentType)
      .set('content-disposition', record.contentDisposition)
      .set('x-content-type-options', 'nosniff')
      .send(record.content);
  });
  return router;
}
