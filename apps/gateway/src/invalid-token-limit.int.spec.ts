import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { JWTVerifyGetKey } from 'jose';
import { openRedis } from '@bedrequest/persistence';
import { silentLogger, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { createTokenVerifier, requireToken } from '@bedrequest/tokens';
import { AUDIENCE, ISSUER, accessToken, localKeys, newSigningKey, type TestSigningKey } from '@bedrequest/tokens/testing';
import { errorHandler } from './http-errors';
import { invalidTokenLimit } from './invalid-token-limit';
import { send, spend, statuses, withinOneWindow, type Answer } from './testing/client-calls';

/**
 * The limit of invalid tokens per client address, around the token guard, against the real Redis,
 * with the verification work counted: each signature check asks for its key (jose's key lookup), so
 * the lookups are the tokens verified. Tokens signed with another key under the same key id are the
 * costly kind: well-formed, checked to the signature.
 */
const env = testEnvironment();
const PER_SECOND = 3;
const [A, B] = ['127.0.0.2', '127.0.0.3'];

describe('the limit per address of invalid tokens', () => {
  const redis = openRedis({ REDIS_URL: env.redisUrl, REDIS_KEY_PREFIX: `${env.redisKeyPrefix}${uniqueName('invalidtokens')}:` }, silentLogger());
  let key: TestSigningKey;
  let stranger: TestSigningKey;
  let server: Server;
  let base: string;
  const work = { verified: 0 };

  beforeAll(async () => {
    key = await newSigningKey();
    stranger = await newSigningKey(key.kid);
    const keys = localKeys(key);
    const counted: JWTVerifyGetKey = (header, token) => {
      work.verified += 1;
      return keys(header, token);
    };
    const verifier = createTokenVerifier({ keys: counted, issuer: ISSUER, audience: AUDIENCE });
    const limit = invalidTokenLimit({ redis, verifier, perSecond: PER_SECOND, exempt: [], refusalHoldMs: 0 });
    const app = express()
      .get('/guarded', limit(requireToken({ verifier, roles: ['referrer'] })), (_req, res) => void res.json({ ok: true }))
      .use(errorHandler(silentLogger()));
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await waitFor(() => redis.status === 'ready', { what: 'Redis connected' });
  });

  afterAll(async () => {
    server?.close();
    await redis.quit();
  });

  // Every test starts in a window of its own: the budgets are per second.
  beforeEach(() => new Promise((resolve) => setTimeout(resolve, 1_100)));

  const guarded = (from: string, token: string): Promise<Answer> =>
    send(base, from, '/guarded', { method: 'GET', headers: { authorization: `Bearer ${token}` } });
  const forged = () => accessToken(stranger);
  const valid = (sub: string) => accessToken(key, { sub });

  it('verifies no token of an address over its budget, while a token verified before passes and another address is verified', async () => {
    const known = await valid('known');
    expect((await guarded(A, known)).status).toBe(200);
    const trial = await withinOneWindow(
      async () => {
        const before = work.verified;
        const verifiedBy = new Map<Answer, number>();
        const answers = await spend(async () => {
          const answer = await guarded(A, await forged());
          verifiedBy.set(answer, work.verified - before);
          return answer;
        }, 10 * PER_SECOND);
        return answers.map((answer) => ({ ...answer, verified: verifiedBy.get(answer) }));
      },
      async () => {
        const before = work.verified;
        const atA = { forged: await guarded(A, await forged()), known: await guarded(A, known), fresh: await guarded(A, await valid('fresh-at-a')) };
        const verifiedAtA = work.verified - before;
        const atB = { forged: await guarded(B, await forged()), fresh: await guarded(B, await valid('fresh-at-b')) };
        return { atA, verifiedAtA, atB, verifiedAtB: work.verified - before - verifiedAtA };
      },
      async () => (await guarded(A, await forged())).status === 429,
    );
    // The budget's invalid tokens verified and refused (401), then the next one refused unverified.
    expect(trial.spent.map((answer) => [answer.status, (answer as Answer & { verified: number }).verified])).toEqual([
      ...Array.from({ length: PER_SECOND }, (_, index) => [401, index + 1]),
      [429, PER_SECOND],
    ]);
    expect(statuses(trial.after.atA)).toEqual({ forged: 429, known: 200, fresh: 429 });
    expect(trial.after.verifiedAtA).toBe(0);
    expect(statuses(trial.after.atB)).toEqual({ forged: 401, fresh: 200 });
    expect(trial.after.verifiedAtB).toBe(2);
  });

  it("counts no valid token against its address: many parties' new tokens at once from one address leave its budget whole", async () => {
    const parties = await Promise.all(Array.from({ length: 4 * PER_SECOND }, (_, party) => valid(`behind-one-address-${party}`)));
    const trial = await withinOneWindow(
      async () => [
        ...(await Promise.all(parties.map((token) => guarded(A, token)))),
        ...(await spend(async () => guarded(A, await forged()), 10 * PER_SECOND)),
      ],
      async () => ({}),
      async () => (await guarded(A, await forged())).status === 429,
    );
    expect(trial.spent.map((answer) => answer.status)).toEqual([...parties.map(() => 200), ...Array(PER_SECOND).fill(401), 429]);
  });
});
