import type { IncomingMessage } from 'node:http';
import { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { clientAddressOf } from '@bedrequest/observability';
import { SessionExpiredError, type InboxApi } from '../inbox/inbox-api';
import type { HeldAnswers } from './held-answers';
import { MAX_BODY_BYTES, type FailureMode, type ReceiverAnswer, type ReceiverStore } from './receiver-store';
import { checkSignature, type SignatureCheck } from './signature-check';

/**
 * How long a "timeout" failure holds its answer at most: three times the notifier's default
 * WEBHOOK_TIMEOUT (10 s), so that the caller gives up first; the hold ends as soon as it does.
 */
export const HOLD_MS = 30_000;

/**
 * The inspector's receivers (docs/workspace.md, "Webhook-Inspektor (nur Sandbox)"): `POST
 * /sandbox/hooks/{token}` takes any POST without a session (the notifier posts there), records it
 * with its signature check, and answers 204, or the failure the fail-next setting asks for. A token
 * never made is 404 and recorded nowhere. Bodies are recorded for the inspector's page, never logged.
 *
 * `GET /sandbox/receiver` with an API access token (`Authorization: Bearer …`) answers the address
 * of the token's party's receiver, `{"url": …}`, made on first use as the page makes it: so that an
 * integrator's script, which has a token and no browser session, subscribes to the inspector
 * (docs/integration.md). The token is the gateway's to judge: the web app asks it for the party.
 */
export function receiverRouter(options: {
  store: ReceiverStore;
  held: HeldAnswers;
  logger: Logger;
  api: InboxApi;
  /** WEB_PUBLIC_URL: where the notifier reaches the web app; unset, the origin the caller used. */
  publicUrl?: string | undefined;
}): Router {
  const { store, held } = options;
  const router = Router();

  router.get('/sandbox/receiver', async (req: Request, res: Response) => {
    res.setHeader('cache-control', 'no-store');
    const token = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(req.get('authorization') ?? '')?.[1];
    if (!token) return res.status(401).json({ error: 'invalid_token', message: 'an API access token is needed: Authorization: Bearer <token>' });
    let party;
    try {
      party = await options.api.hospitalFor({ token, correlationId: String(req.headers['x-correlation-id']), clientAddress: clientAddressOf(req) }).party();
    } catch (error) {
      if (error instanceof SessionExpiredError) return res.status(401).json({ error: 'invalid_token', message: 'the access token is not valid (expired?)' });
      throw error;
    }
    if (party.role !== 'referrer') {
      return res.status(403).json({ error: 'forbidden', message: 'the inspector receives a referrer’s webhooks: log in as a hospital' });
    }
    const receiver = await store.receiverOf(party.id);
    res.json({ url: `${options.publicUrl ?? `${req.protocol}://${req.get('host') ?? ''}`}/sandbox/hooks/${receiver}` });
  });

  router.post('/sandbox/hooks/:token', async (req: Request, res: Response) => {
    const token = String(req.params.token);
    const party = await store.partyOf(token);
    if (!party) {
      req.resume();
      return res.status(404).type('text/plain').send('No such receiver.');
    }
    const receivedAt = new Date().toISOString();
    const { body, bytes } = await readBounded(req, MAX_BODY_BYTES);
    const headers = headerPairs(req.rawHeaders);
    if (!body) {
      await store.record(token, party, {
        receivedAt,
        headers,
        bodyBytes: bytes,
        check: { state: 'not-checked' },
        answer: { kind: 'status', status: 413 },
        failedOnPurpose: false,
      });
      return res.status(413).type('text/plain').send(`The body is larger than ${MAX_BODY_BYTES} bytes.`);
    }
    const check: SignatureCheck = checkSignature(body, singleHeaders(req), await store.secrets(token));
    const failure = await store.takeFailure(token);
    const answer: ReceiverAnswer = failure ? answerOf(failure) : { kind: 'status', status: 204 };
    await store.record(token, party, {
      receivedAt,
      headers,
      body: body.toString('utf8'),
      bodyBytes: bytes,
      check,
      answer,
      failedOnPurpose: failure !== undefined,
    });
    if (answer.kind === 'timeout') {
      const end = await held.hold(res, HOLD_MS);
      options.logger.debug({ end }, 'sandbox receiver: a held answer ended');
      if (end === 'caller-gave-up') return;
      return res
        .status(end === 'released' ? 503 : 504)
        .type('text/plain')
        .send('Held on purpose (fail-next: timeout).');
    }
    if (answer.status === 204) return res.status(204).end();
    res.status(answer.status).type('text/plain').send('Failed on purpose (fail-next).');
  });

  return router;
}

function answerOf(failure: FailureMode): ReceiverAnswer {
  return failure.kind === 'timeout' ? { kind: 'timeout' } : { kind: 'status', status: failure.status };
}

/**
 * The body, read to its end: kept while it fits `limit`, only counted beyond (so that the caller
 * still reads the 413 rather than a reset connection); `body` is undefined when it did not fit.
 */
async function readBounded(req: IncomingMessage, limit: number): Promise<{ body?: Buffer; bytes: number }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    bytes += buffer.length;
    if (bytes <= limit) chunks.push(buffer);
  }
  return bytes <= limit ? { body: Buffer.concat(chunks), bytes } : { bytes };
}

/** Every header as sent: name (its case as sent) and value, in order, repeated ones each. */
function headerPairs(raw: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let index = 0; index + 1 < raw.length; index += 2) pairs.push([raw[index] as string, raw[index + 1] as string]);
  return pairs;
}

/** The headers by lower-case name, one value each (Node joins repeated ones). */
function singleHeaders(req: IncomingMessage): Record<string, string> {
  return Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]));
}
