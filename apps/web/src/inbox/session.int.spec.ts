import express from 'express';
import { UnsecuredJWT } from 'jose';
import request from 'supertest';
import type { Redis } from 'ioredis';
import { HttpError, jsonErrorHandler } from '@bedrequest/http';
import { closeRedis, openRedis } from '@bedrequest/persistence';
import { silentLogger, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { SessionStore } from '../session/session-store';
import { LoginRefusedError, type ApiCaller, type InboxApi } from './inbox-api';
import { COOKIES, InboxSessions } from './session';

const principal = { partyId: 'user-1', role: 'clinic' as const, ikNumbers: ['510000001'] };
/** An access token of the clinic's user that expires `seconds` from now (unsigned: the web app only reads its claims). */
const accessToken = (seconds: number) =>
  new UnsecuredJWT({ role: 'clinic', ik: principal.ikNumbers })
    .setSubject(principal.partyId)
    .setExpirationTime(Math.floor(Date.now() / 1000) + seconds)
    .encode();

/**
 * What a renewal's answer does to the session, against the real Redis with a stand-in for the token
 * endpoint: only a refusal of the refresh token ends it; refused for now (429) or unanswered, the
 * session stays, its access token serving while it lasts, and then the page asks to wait. The same
 * through the whole stack, with a real 429 of the gateway: tools/e2e/inbox/inbox-sessions.int.spec.ts.
 */
describe('the renewal of an inbox session', () => {
  const env = testEnvironment();
  let redis: Redis;
  let store: SessionStore;
  /** What the stand-in token endpoint does with the next refresh, and who asked. */
  let refresh: () => Promise<never>;
  const callers: ApiCaller[] = [];
  let app: express.Express;

  beforeAll(async () => {
    redis = openRedis({ REDIS_URL: env.redisUrl, REDIS_KEY_PREFIX: `${env.redisKeyPrefix}${uniqueName('web')}:` }, silentLogger());
    await waitFor(() => redis.status === 'ready', { what: 'Redis' });
    store = new SessionStore(redis);
    const api = {
      refresh: async (_refreshToken: string, caller: ApiCaller) => {
        callers.push(caller);
        return refresh();
      },
    };
    const sessions = new InboxSessions({ api: api as unknown as InboxApi, store, secureCookies: false, refreshMarginMs: 300_000, logger: silentLogger() });
    app = express()
      .set('trust proxy', 'loopback')
      .get('/inbox/page', async (req, res) => {
        const session = await sessions.resolve(req, res);
        res.json({ accessToken: session?.accessToken ?? null });
      })
      .use(jsonErrorHandler(silentLogger()));
  });

  afterAll(async () => {
    await closeRedis(redis);
  });

  /** A session whose access token expires in `seconds` (within the 300 s margin: every request renews). */
  const sessionWith = async (seconds: number) => {
    const id = store.newId();
    const record = await store.create(id, { accessToken: accessToken(seconds), refreshToken: `refresh-${id}`, principal });
    return { id, record };
  };
  const visit = (id: string) => request(app).get('/inbox/page').set('cookie', `${COOKIES.session}=${id}`).set('x-forwarded-for', '192.0.2.7');

  it("serves the request with the access token the session has when the renewal is refused for now (429) or not answered, and asks at the browser's address", async () => {
    for (const failure of [new LoginRefusedError('too_many_requests', 3), new HttpError('unavailable', 'the token endpoint answered HTTP 503')]) {
      refresh = () => Promise.reject(failure);
      const { id, record } = await sessionWith(120);
      const answer = await visit(id);
      expect({ status: answer.status, body: answer.body as unknown }).toEqual({ status: 200, body: { accessToken: record.accessToken } });
      expect((await store.load(id))?.refreshToken).toBe(record.refreshToken);
    }
    expect(callers.at(-1)?.clientAddress).toBe('192.0.2.7');
  });

  it('answers 429 with Retry-After, the session kept, when the access token has expired and the renewal is refused for now', async () => {
    refresh = () => Promise.reject(new LoginRefusedError('too_many_requests', 3));
    const { id, record } = await sessionWith(-5);
    const answer = await visit(id);
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe('3');
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect((await store.load(id))?.refreshToken).toBe(record.refreshToken);
  });

  it('ends the session when the token endpoint refuses its refresh token (401)', async () => {
    refresh = () => Promise.reject(new LoginRefusedError('invalid_credentials'));
    const { id } = await sessionWith(120);
    const answer = await visit(id);
    expect({ status: answer.status, body: answer.body as unknown }).toEqual({ status: 200, body: { accessToken: null } });
    expect(answer.headers['set-cookie']?.[0]).toMatch(new RegExp(`^${COOKIES.session}=;`));
    expect(await store.load(id)).toBeUndefined();
  });
});
