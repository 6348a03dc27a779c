import { Registry } from 'prom-client';
import type { RevocationListAnswer } from '@bedrequest/contracts';
import { UpstreamUnavailableError } from '@bedrequest/http';
import { captureLogger, metricSum, silentLogger } from '@bedrequest/testing';
import type { Principal } from './claims';
import { RevocationList, type RevocationListOptions } from './revocation-list';
import { AUDIENCE, ISSUER, accessToken, localKeys, newSigningKey, referrerClaims } from './testing';
import { InvalidAccessTokenError, createTokenVerifier } from './verifier';

const principal = (partyId: string, userId: string): Principal => ({ partyId, userId, role: 'clinic', ikNumbers: ['510000001'] });
const erika = principal('party-nord', 'user-erika');
const max = principal('party-nord', 'user-max');
const jana = principal('party-waldsee', 'user-jana');

/** 2026-12-06T10:00:00Z, in whole seconds as `iat` counts. */
const T = Date.parse('2026-12-06T10:00:00.000Z') / 1000;
const at = (seconds: number) => new Date((T + seconds) * 1000).toISOString();
const answer = (revoked: { users?: [string, string][]; parties?: [string, string][] }): RevocationListAnswer => ({
  users: (revoked.users ?? []).map(([id, revokedAt]) => ({ id, revokedAt })),
  parties: (revoked.parties ?? []).map(([id, revokedAt]) => ({ id, revokedAt })),
  asOf: at(0),
});

/**
 * The gateway's list of revoked access tokens (docs/parties.md, "Disabling"), with a stand-in for
 * auth's `GET /internal/revocations`: each read is started by the test (`refresh`) or by fake timers,
 * never by the wall clock.
 */
describe('RevocationList', () => {
  let clock: number;
  /** What the stand-in answers next: a list, or a failure. */
  let next: () => Promise<RevocationListAnswer>;
  let reads: number;
  const listWith = (options: Partial<RevocationListOptions> = {}) =>
    new RevocationList({
      load: () => {
        reads += 1;
        return next();
      },
      pollIntervalMs: 1_000,
      logger: silentLogger(),
      now: () => clock,
      ...options,
    });

  beforeEach(() => {
    clock = (T + 10) * 1000;
    reads = 0;
    next = () => Promise.resolve(answer({}));
  });

  it("refuses a revoked person's tokens issued at or before the revocation, and neither later ones nor the other people's", async () => {
    const sut = listWith();
    next = () => Promise.resolve(answer({ users: [['user-max', at(0.5)]] }));

    await sut.refresh();

    expect([sut.revokes(max, T - 3_000), sut.revokes(max, T)]).toEqual([true, true]);
    // Issued in the next second: after the revocation (auth enables nobody within its second).
    expect(sut.revokes(max, T + 1)).toBe(false);
    expect([sut.revokes(erika, T), sut.revokes(jana, T)]).toEqual([false, false]);
  });

  it("refuses every person's tokens of a revoked party, and no other party's", async () => {
    const sut = listWith();
    next = () => Promise.resolve(answer({ parties: [['party-nord', at(0)]] }));

    await sut.refresh();

    expect([sut.revokes(erika, T), sut.revokes(max, T - 60)]).toEqual([true, true]);
    expect([sut.revokes(erika, T + 1), sut.revokes(jana, T)]).toEqual([false, false]);
  });

  it('forgets a revocation auth no longer lists (its tokens have expired)', async () => {
    const sut = listWith();
    next = () => Promise.resolve(answer({ users: [['user-max', at(0)]] }));
    await sut.refresh();
    next = () => Promise.resolve(answer({}));

    await sut.refresh();

    expect(sut.revokes(max, T)).toBe(false);
  });

  it('fails open: keeps the last list while auth cannot be read, warns once per outage, and says when it is read again', async () => {
    const captured = captureLogger('info');
    const registry = new Registry();
    const sut = listWith({ logger: captured.logger, registry });
    next = () => Promise.resolve(answer({ users: [['user-max', at(0)]] }));
    await sut.refresh();
    next = () => Promise.reject(new Error('auth connect ECONNREFUSED 127.0.0.1:8081'));

    for (let second = 1; second <= 3; second += 1) {
      clock += 1_000;
      await sut.refresh();
    }

    expect(sut.revokes(max, T)).toBe(true);
    expect(sut.ageMs()).toBe(3_000);
    expect(metricSum(await registry.metrics(), 'token_revocation_list_age_seconds')).toBe(3);
    expect(metricSum(await registry.metrics(), 'token_revocation_list_failures_total')).toBe(3);
    const warnings = () =>
      captured
        .text()
        .split('\n')
        .filter((line) => line.includes('cannot be read from auth'));
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain('ECONNREFUSED');

    next = () =>
      Promise.resolve(
        answer({
          users: [
            ['user-max', at(0)],
            ['user-erika', at(2)],
          ],
        }),
      );
    clock += 1_000;
    await sut.refresh();
    expect(sut.revokes(erika, T)).toBe(true);
    expect(sut.ageMs()).toBe(0);
    expect(captured.text()).toContain('read from auth again');

    // What the client throws: its message is the same for every failure, the reason says which.
    next = () =>
      Promise.reject(
        new UpstreamUnavailableError('the list of revoked access tokens is unavailable', {
          service: 'auth',
          url: 'http://auth',
          reason: 'answered HTTP 404 with text/html',
        }),
      );
    await sut.refresh();
    await sut.refresh();
    expect(warnings()).toHaveLength(2);
    expect(warnings()[1]).toContain('auth answered HTTP 404 with text/html');
  });

  it('counts its age from its making before the first read, so that a list never read shows as old', async () => {
    const registry = new Registry();
    const sut = listWith({ registry });
    next = () => Promise.reject(new Error('auth answered HTTP 404'));
    clock += 5_000;

    await sut.refresh();

    expect(metricSum(await registry.metrics(), 'token_revocation_list_age_seconds')).toBe(5);
  });

  describe('polling', () => {
    // Timeouts and intervals only: what jest's workers schedule on the next tick is none of the list's.
    beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
    afterEach(() => jest.useRealTimers());

    it('waits for the first read at most startTimeoutMs, then reads every pollIntervalMs until stopped, without keeping the process alive', async () => {
      const captured = captureLogger('warn');
      let answerFirst: (list: RevocationListAnswer) => void = () => undefined;
      next = () => new Promise((resolve) => (answerFirst = resolve));
      let closed = false;
      const sut = listWith({ startTimeoutMs: 2_000, logger: captured.logger, close: async () => void (closed = true) });

      let started = false;
      const starting = sut.start().then(() => (started = true));
      await jest.advanceTimersByTimeAsync(1_999);
      expect(started).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      await starting;
      expect(captured.text()).toContain('started without the list of revoked access tokens');

      // The first read answers late; the next begins a poll interval after it.
      next = () => Promise.resolve(answer({ users: [['user-max', at(0)]] }));
      answerFirst(answer({}));
      await jest.advanceTimersByTimeAsync(999);
      expect(reads).toBe(1);
      await jest.advanceTimersByTimeAsync(1);
      expect(reads).toBe(2);
      expect(sut.revokes(max, T)).toBe(true);
      await jest.advanceTimersByTimeAsync(3_000);
      expect(reads).toBe(5);

      await sut.stop();
      await jest.advanceTimersByTimeAsync(10_000);
      expect(reads).toBe(5);
      expect(closed).toBe(true);
      expect(jest.getTimerCount()).toBe(0);
    });

    it('starts as soon as the first read answers', async () => {
      const sut = listWith({ startTimeoutMs: 2_000 });
      await sut.start();
      expect(reads).toBe(1);
      expect(jest.getTimerCount()).toBe(1);
      await sut.stop();
    });
  });

  it('never keeps the process alive: its timers are unref-ed', async () => {
    const spy = jest.spyOn(global, 'setTimeout');
    const sut = listWith();
    try {
      await sut.start();
      const timers = spy.mock.results.map((result) => result.value as NodeJS.Timeout);
      expect(timers.length).toBeGreaterThanOrEqual(2);
      expect(timers.filter((timer) => timer.hasRef())).toEqual([]);
    } finally {
      spy.mockRestore();
      await sut.stop();
    }
  });
});

describe('a verifier with a revocation list', () => {
  it("refuses a token it verified a moment before once its person is revoked, and forgets it (knows() is false); the other person's passes", async () => {
    const key = await newSigningKey();
    let next = answer({});
    const revocations = new RevocationList({ load: async () => next, pollIntervalMs: 1_000, logger: silentLogger() });
    const sut = createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE, revocations });
    const issuedAt = Math.floor(Date.now() / 1000);
    const tokenOf = (userId: string) => accessToken(key, { sub: 'party-nord', issuedAt, claims: { ...referrerClaims, act: { sub: userId } } });
    const [maxToken, erikaToken] = [await tokenOf('user-max'), await tokenOf('user-erika')];
    await sut.verify(maxToken);
    expect(sut.knows(maxToken)).toBe(true);

    next = answer({ users: [['user-max', new Date(issuedAt * 1000 + 500).toISOString()]] });
    await revocations.refresh();

    expect(sut.knows(maxToken)).toBe(false);
    await expect(sut.verify(maxToken)).rejects.toEqual(new InvalidAccessTokenError('the access token was revoked'));
    await expect(sut.verify(maxToken)).rejects.toBeInstanceOf(InvalidAccessTokenError);
    await expect(sut.verify(erikaToken)).resolves.toMatchObject({ principal: { userId: 'user-erika' } });
  });

  it('refuses every token of a revoked party, also one never verified before; a token issued after the revocation passes', async () => {
    const key = await newSigningKey();
    const issuedAt = Math.floor(Date.now() / 1000) - 60;
    const revocations = new RevocationList({
      load: async () => answer({ parties: [['party-nord', new Date(issuedAt * 1000).toISOString()]] }),
      pollIntervalMs: 1_000,
      logger: silentLogger(),
    });
    await revocations.refresh();
    const sut = createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE, revocations });

    await expect(sut.verify(await accessToken(key, { sub: 'party-nord', issuedAt }))).rejects.toThrow('the access token was revoked');
    await expect(sut.verify(await accessToken(key, { sub: 'party-nord', issuedAt: issuedAt + 1 }))).resolves.toMatchObject({ kind: 'party' });
    await expect(sut.verify(await accessToken(key, { sub: 'party-sued', issuedAt }))).resolves.toMatchObject({ kind: 'party' });
  });
});
