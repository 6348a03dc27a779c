import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AUDIENCE,
  HOUR,
  ISSUER,
  SERVICE_AUDIENCE,
  accessToken,
  clinicClaims,
  localKeys,
  newSigningKey,
  referrerClaims,
  serviceToken,
  type TestSigningKey,
} from './testing';
import { InvalidAccessTokenError, SigningKeysUnavailableError, createTokenVerifier, remoteSigningKeys, type TokenVerifier } from './verifier';

const base64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

describe('access token verification', () => {
  let key: TestSigningKey;
  let clock: number;
  let verifier: TokenVerifier;

  beforeEach(async () => {
    key = await newSigningKey();
    clock = Date.now();
    verifier = createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE, now: () => clock });
  });

  it('turns a valid referrer token into its principal', async () => {
    const token = await accessToken(key, { sub: 'user-1' });

    await expect(verifier.verify(token)).resolves.toEqual({
      kind: 'party',
      principal: {
        partyId: 'user-1',
        userId: 'user-1',
        role: 'referrer',
        ikNumbers: ['260000001', '260000002'],
        fhirBase: 'https://demo-hospital.example/fhir',
      },
    });
  });

  it('turns a valid clinic token into its principal, without a FHIR base', async () => {
    const token = await accessToken(key, { sub: 'user-2', claims: clinicClaims });

    await expect(verifier.verify(token)).resolves.toEqual({
      kind: 'party',
      principal: { partyId: 'user-2', userId: 'user-2', role: 'clinic', ikNumbers: ['510000001'] },
    });
  });

  it('accepts a token until its 3600 s are over and refuses it afterwards', async () => {
    const token = await accessToken(key, { issuedAt: Math.floor(clock / 1000) });

    clock += (HOUR - 1) * 1000;
    await expect(verifier.verify(token)).resolves.toMatchObject({ principal: { role: 'referrer' } });
    clock += 2_000;
    const refusal = verifier.verify(token);
    await expect(refusal).rejects.toBeInstanceOf(InvalidAccessTokenError);
    await expect(refusal).rejects.toThrow('the access token has expired');
  });

  it('checks a token once and answers it from memory until it expires, then refuses it', async () => {
    let keyLookups = 0;
    const keys = localKeys(key);
    const counting = createTokenVerifier({
      keys: (header, token) => {
        keyLookups++;
        return keys(header, token);
      },
      issuer: ISSUER,
      audience: AUDIENCE,
      now: () => clock,
    });
    const token = await accessToken(key, { issuedAt: Math.floor(clock / 1000) });

    for (let n = 0; n < 5; n++) await expect(counting.verify(token)).resolves.toMatchObject({ principal: { role: 'referrer' } });
    expect(keyLookups).toBe(1);
    clock += (HOUR + 1) * 1000;
    await expect(counting.verify(token)).rejects.toThrow('the access token has expired');
    expect(keyLookups).toBe(2);
  });

  it('knows a token it verified until the token expires, and never one it refused', async () => {
    const token = await accessToken(key, { issuedAt: Math.floor(clock / 1000) });
    const forged = await accessToken(await newSigningKey(key.kid));

    expect(verifier.knows(token)).toBe(false);
    await verifier.verify(token);
    expect(verifier.knows(token)).toBe(true);
    await expect(verifier.verify(forged)).rejects.toBeInstanceOf(InvalidAccessTokenError);
    expect(verifier.knows(forged)).toBe(false);
    clock += (HOUR + 1) * 1000;
    expect(verifier.knows(token)).toBe(false);
  });

  it('keeps at most its cache size of verified tokens, the newest', async () => {
    let keyLookups = 0;
    const keys = localKeys(key);
    const small = createTokenVerifier({
      keys: (header, token) => (keyLookups++, keys(header, token)),
      issuer: ISSUER,
      audience: AUDIENCE,
      now: () => clock,
      cacheSize: 2,
    });
    const [first, second, third] = await Promise.all(['a', 'b', 'c'].map((sub) => accessToken(key, { sub })));
    for (const token of [first!, second!, third!]) await small.verify(token);
    await small.verify(third!);
    await small.verify(first!);
    expect(keyLookups).toBe(4);
  });

  it('refuses a token whose payload was changed after signing', async () => {
    const [header, , signature] = (await accessToken(key, { claims: clinicClaims })).split('.');
    const forged = base64url(JSON.stringify({ ...clinicClaims, role: 'referrer', fhirBase: 'https://evil.example', sub: 'x' }));

    await expect(verifier.verify(`${header}.${forged}.${signature}`)).rejects.toBeInstanceOf(InvalidAccessTokenError);
  });

  it('refuses a token signed by a key the auth service does not publish', async () => {
    const stranger = await newSigningKey(key.kid);

    await expect(verifier.verify(await accessToken(stranger))).rejects.toBeInstanceOf(InvalidAccessTokenError);
  });

  it('refuses an unsigned token (alg none)', async () => {
    const now = Math.floor(clock / 1000);
    const header = base64url(JSON.stringify({ alg: 'none', typ: 'at+jwt' }));
    const payload = base64url(JSON.stringify({ ...referrerClaims, sub: 'x', jti: 'j', iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + HOUR }));

    await expect(verifier.verify(`${header}.${payload}.`)).rejects.toBeInstanceOf(InvalidAccessTokenError);
  });

  it('refuses an HS256 token keyed with the public key (algorithm confusion)', async () => {
    const now = Math.floor(clock / 1000);
    const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'at+jwt', kid: key.kid }));
    const payload = base64url(JSON.stringify({ ...referrerClaims, sub: 'x', jti: 'j', iss: ISSUER, aud: AUDIENCE, iat: now, exp: now + HOUR }));
    for (const secret of [JSON.stringify(key.publicJwk), Buffer.from(key.publicJwk.x!, 'base64url')]) {
      const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url');
      await expect(verifier.verify(`${header}.${payload}.${signature}`)).rejects.toBeInstanceOf(InvalidAccessTokenError);
    }
  });

  it.each([
    ['another issuer', { issuer: 'urn:someone-else' }],
    ['another audience', { audience: 'urn:another-api' }],
    ['another token type', { typ: 'JWT' }],
    ['no party claims', { claims: {} }],
    ['a clinic with two IK numbers', { claims: { role: 'clinic', ik: ['510000001', '510000002'] } }],
    ['a referrer without FHIR base', { claims: { role: 'referrer', ik: ['260000001'] } }],
    ['an unknown role', { claims: { role: 'admin', ik: ['260000001'] } }],
  ])('refuses a token with %s', async (_case, options) => {
    await expect(verifier.verify(await accessToken(key, options))).rejects.toBeInstanceOf(InvalidAccessTokenError);
  });

  it('refuses what is not a JWT at all', async () => {
    await expect(verifier.verify('not-a-token')).rejects.toBeInstanceOf(InvalidAccessTokenError);
  });

  it('after a key rotation accepts tokens of the current and of the previous key', async () => {
    const next = await newSigningKey();
    const rotated = createTokenVerifier({ keys: localKeys(next, key), issuer: ISSUER, audience: AUDIENCE });

    await expect(rotated.verify(await accessToken(key))).resolves.toMatchObject({ principal: { role: 'referrer' } });
    await expect(rotated.verify(await accessToken(next))).resolves.toMatchObject({ principal: { role: 'referrer' } });
  });

  describe('service tokens', () => {
    let internal: TokenVerifier;

    beforeEach(() => {
      internal = createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE, serviceAudience: SERVICE_AUDIENCE, now: () => clock });
    });

    it('turns a service token into its service where service tokens are expected', async () => {
      await expect(internal.verify(await serviceToken(key, 'gateway'))).resolves.toEqual({ kind: 'service', service: 'gateway' });
    });

    it('still turns a forwarded party token into its principal there', async () => {
      await expect(internal.verify(await accessToken(key, { sub: 'user-1' }))).resolves.toMatchObject({ kind: 'party', principal: { partyId: 'user-1' } });
    });

    it('refuses a service token where only parties are expected (the public API)', async () => {
      await expect(verifier.verify(await serviceToken(key, 'gateway'))).rejects.toBeInstanceOf(InvalidAccessTokenError);
    });

    it.each([
      ["the parties' audience", { audience: AUDIENCE }],
      ['another audience', { audience: 'urn:another-api' }],
    ])('refuses a service token for %s', async (_case, options) => {
      await expect(internal.verify(await serviceToken(key, 'gateway', options))).rejects.toBeInstanceOf(InvalidAccessTokenError);
    });

    it('refuses a party token addressed to the services, and a service token naming no service', async () => {
      await expect(internal.verify(await accessToken(key, { audience: SERVICE_AUDIENCE }))).rejects.toBeInstanceOf(InvalidAccessTokenError);
      await expect(
        internal.verify(await accessToken(key, { claims: { role: 'service' }, sub: 'Not A Name', audience: SERVICE_AUDIENCE })),
      ).rejects.toBeInstanceOf(InvalidAccessTokenError);
    });
  });

  describe('with the keys fetched from the auth service', () => {
    let jwksServer: Server;
    let jwksUrl: URL;
    let fetches: number;
    let answer: { status: number; body: string };

    beforeEach(async () => {
      fetches = 0;
      answer = { status: 200, body: JSON.stringify({ keys: [key.publicJwk] }) };
      jwksServer = createServer((_req, res) => {
        fetches += 1;
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
      await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
      jwksUrl = new URL(`http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/internal/jwks`);
    });
    afterEach(() => new Promise((resolve) => jwksServer.close(resolve)));

    it('fetches the JWKS once and verifies further tokens from its cache', async () => {
      const remote = createTokenVerifier({ keys: remoteSigningKeys(jwksUrl), issuer: ISSUER, audience: AUDIENCE });

      for (let i = 0; i < 3; i += 1) await expect(remote.verify(await accessToken(key))).resolves.toMatchObject({ principal: { role: 'referrer' } });
      expect(fetches).toBe(1);
    });

    it('answers "unavailable", not "invalid token", when the JWKS cannot be fetched', async () => {
      answer = { status: 500, body: 'oops' };
      const remote = createTokenVerifier({ keys: remoteSigningKeys(jwksUrl), issuer: ISSUER, audience: AUDIENCE });

      await expect(remote.verify(await accessToken(key))).rejects.toBeInstanceOf(SigningKeysUnavailableError);
    });

    it('answers "unavailable" when the auth service does not answer at all', async () => {
      await new Promise((resolve) => jwksServer.close(resolve));
      const remote = createTokenVerifier({ keys: remoteSigningKeys(jwksUrl), issuer: ISSUER, audience: AUDIENCE });

      await expect(remote.verify(await accessToken(key))).rejects.toBeInstanceOf(SigningKeysUnavailableError);
      jwksServer = createServer();
      await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    });
  });
});
