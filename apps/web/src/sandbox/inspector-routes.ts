import { Router, type Request, type Response } from 'express';
import { PayloadForm, SubscriptionEventType, type SubscriptionView } from '@bedrequest/contracts';
import { checkReceiver, ReceiverCheckOptionsError } from '@bedrequest/webhook-check';
import { SessionExpiredError } from '../inbox/inbox-api';
import { sendPage, sessionOf } from '../inbox/inbox-context';
import { hospitalApiOf, workspacePageOf, type WorkspaceContext } from '../workspace/workspace-context';
import { inspectorTexts as t } from './inspector.texts.de';
import { deliveryEntry } from './pages/delivery-entry';
import { failState, inspectorPage, INSPECTOR_PATH, type FailForm, type InspectorView } from './pages/inspector.page';
import { KEPT_DELIVERIES, SECRET_LABELS, type ReceiverStore } from './receiver-store';
import { isWebhookSecret } from './signature-check';

export interface InspectorOptions {
  store: ReceiverStore;
  /** WEB_PUBLIC_URL: where the notifier reaches the web app; unset, the origin the browser used. */
  publicUrl?: string | undefined;
  /** What the receiver check sends with: through the address guard (guarded-fetch.ts). */
  fetchImpl: typeof fetch;
}

type Flash = NonNullable<InspectorView['flash']>;
const FLASHES: Record<string, Flash> = {
  subscribed: { kind: 'success', message: t.subscription.done },
  secret: { kind: 'success', message: t.secret.saved },
  'secret-removed': { kind: 'success', message: t.secret.removed },
  fail: { kind: 'success', message: t.fail.saved },
  'fail-cancelled': { kind: 'success', message: t.fail.cancelled },
  cleared: { kind: 'success', message: t.deliveries.cleared },
};

/**
 * The webhook inspector's page and forms (docs/workspace.md, "Webhook-Inspektor (nur Sandbox)"),
 * for any person of the hospital, mounted only in sandbox mode. The receiver itself is
 * receiver.router.ts; both share the party's receiver in Redis (ReceiverStore). Post/redirect/get;
 * a refusal shows the page again with what was entered.
 *
 * - `GET /sandbox/webhooks`, `GET /sandbox/webhooks/updates?since=<id>` (JSON for the live list);
 * - `POST /sandbox/webhooks/subscribe|secret|fail|fail/cancel|clear`;
 * - `POST /sandbox/webhooks/check`: the person's own receiver checked (libs/webhook-check), the result on the page.
 */
export function inspectorRoutes(context: WorkspaceContext, options: InspectorOptions): Router {
  const { store } = options;
  const router = Router();
  const path = INSPECTOR_PATH.slice('/workspace'.length);
  const receiverOf = (res: Response) => store.receiverOf(sessionOf(res).principal.partyId);
  const addressOf = (req: Request, token: string) => `${options.publicUrl ?? `${req.protocol}://${req.get('host') ?? ''}`}/sandbox/hooks/${token}`;

  const render = async (req: Request, res: Response, view: Partial<InspectorView>, status = 200) => {
    const token = await receiverOf(res);
    const subscriptions = await hospitalApiOf(context, req, res)
      .subscriptions()
      .list()
      // The page shows without them should the read fail; an ended session ends it.
      .catch((error: unknown) => (error instanceof SessionExpiredError ? Promise.reject(error) : undefined));
    await keepSecretsOf(token, subscriptions);
    const [secrets, failures, deliveries, page] = await Promise.all([
      store.secrets(token),
      store.failures(token),
      store.deliveries(token, { limit: KEPT_DELIVERIES }),
      workspacePageOf(context, req, res),
    ]);
    const full = {
      address: addressOf(req, token),
      subscriptions,
      secrets,
      failures,
      deliveries,
      formats: context.formats,
      csrfToken: page.signedIn?.csrfToken ?? '',
    };
    sendPage(res, inspectorPage(page, { ...full, ...view }), status);
  };
  // The secret of each subscription that delivers here, made on this page or elsewhere (it may have been rotated since).
  const keepSecretsOf = async (token: string, subscriptions: readonly SubscriptionView[] | undefined) => {
    for (const subscription of subscriptions ?? []) {
      const label = SECRET_LABELS.find((known) => known === subscription.eventType);
      if (label && subscription.callbackUrl.endsWith(`/sandbox/hooks/${token}`)) await store.setSecret(token, label, subscription.secret);
    }
  };
  const done = (res: Response, what: keyof typeof FLASHES) => res.redirect(303, `${INSPECTOR_PATH}?saved=${what}`);
  const field = (req: Request, name: string) => {
    const value = (req.body as Record<string, unknown> | undefined)?.[name];
    return typeof value === 'string' ? value.trim() : '';
  };

  router.get(path, async (req, res) => {
    const flash = FLASHES[String(req.query.saved)];
    await render(req, res, flash ? { flash } : {});
  });

  // What the page's script asks every second or two: the deliveries after `since`, and the failures left.
  router.get(`${path}/updates`, async (req, res) => {
    const token = await store.findReceiver(sessionOf(res).principal.partyId);
    const since = Number(req.query.since);
    const after = Number.isSafeInteger(since) && since >= 0 ? since : 0;
    const [deliveries, failures] = token
      ? await Promise.all([store.deliveries(token, { limit: KEPT_DELIVERIES, since: after }), store.failures(token)])
      : [[], { left: 0 }];
    res.json({
      cursor: deliveries[0]?.id ?? after,
      rows: deliveries.map((delivery) => ({ id: delivery.id, html: deliveryEntry(delivery, context.formats).markup })),
      failState: failState(failures).markup,
    });
  });

  router.post(`${path}/subscribe`, async (req, res) => {
    const eventType = SubscriptionEventType.safeParse(field(req, 'eventType'));
    const payload = PayloadForm.safeParse(field(req, 'payload'));
    if (!eventType.success || !payload.success) return render(req, res, { flash: { kind: 'error', message: t.subscription.refused } }, 400);
    const token = await receiverOf(res);
    const made = await hospitalApiOf(context, req, res)
      .subscriptions()
      .subscribe({ eventType: eventType.data, callbackUrl: addressOf(req, token), payload: payload.data });
    if (!made.ok) return render(req, res, { flash: { kind: 'error', message: `${t.subscription.refused} ${made.message}` } }, 400);
    await store.setSecret(token, eventType.data, made.subscription.secret);
    done(res, 'subscribed');
  });

  router.post(`${path}/secret`, async (req, res) => {
    const secret = field(req, 'secret');
    if (secret && !isWebhookSecret(secret)) return render(req, res, { secretForm: { value: secret, error: t.secret.invalid } }, 400);
    await store.setSecret(await receiverOf(res), 'entered', secret || undefined);
    done(res, secret ? 'secret' : 'secret-removed');
  });

  router.post(`${path}/fail`, async (req, res) => {
    const form: FailForm = {
      count: field(req, 'count'),
      mode: field(req, 'mode') === 'timeout' ? 'timeout' : 'status',
      status: field(req, 'status'),
      errors: {},
    };
    const count = wholeNumberIn(form.count, 1, 100);
    const status = wholeNumberIn(form.status, 400, 599);
    if (count === undefined) form.errors.count = t.fail.countInvalid;
    if (form.mode === 'status' && status === undefined) form.errors.status = t.fail.statusInvalid;
    if (count === undefined || (form.mode === 'status' && status === undefined)) return render(req, res, { failForm: form }, 400);
    await store.failNext(await receiverOf(res), count, form.mode === 'timeout' ? { kind: 'timeout' } : { kind: 'status', status: status as number });
    done(res, 'fail');
  });

  // The check's result is shown at once rather than redirected to: it is this request's, not the receiver's state.
  router.post(`${path}/check`, async (req, res) => {
    const url = field(req, 'url');
    const secret = field(req, 'secret') || (await store.secrets(await receiverOf(res))).find((known) => known.label !== 'entered')?.secret;
    if (!secret) return render(req, res, { check: { url, error: { field: 'secret', message: t.check.noSecret } } }, 400);
    try {
      const result = await checkReceiver({ url, secret, fetchImpl: options.fetchImpl });
      await render(req, res, { check: { url, result } });
    } catch (error) {
      if (!(error instanceof ReceiverCheckOptionsError) || error.field === 'timeoutMs') throw error;
      await render(req, res, { check: { url, error: { field: error.field === 'countUrl' ? 'url' : error.field, message: error.problem } } }, 400);
    }
  });

  router.post(`${path}/fail/cancel`, async (_req, res) => {
    await store.stopFailing(await receiverOf(res));
    done(res, 'fail-cancelled');
  });

  router.post(`${path}/clear`, async (_req, res) => {
    await store.clearDeliveries(await receiverOf(res));
    done(res, 'cleared');
  });

  return router;
}

function wholeNumberIn(text: string, min: number, max: number): number | undefined {
  if (!/^\d{1,4}$/.test(text)) return undefined;
  const value = Number(text);
  return value >= min && value <= max ? value : undefined;
}
