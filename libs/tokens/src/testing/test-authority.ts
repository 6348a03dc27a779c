import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair, type CryptoKey, type JWK, type JWTVerifyGetKey } from 'jose';
import { ACCESS_TOKEN_LIFETIME_SECONDS, ACCESS_TOKEN_TYPE, SERVICE_ROLE, SERVICE_TOKEN_LIFETIME_SECONDS, TOKEN_ALGORITHM } from '../claims';

/** The defaults of the services' configuration (AUTH_ISSUER, AUTH_AUDIENCE, SERVICE_TOKEN_AUDIENCE). */
export const ISSUER = 'urn:bedrequest:auth';
export const AUDIENCE = 'urn:bedrequest:api';
export const SERVICE_AUDIENCE = 'urn:bedrequest:internal';
export const HOUR = ACCESS_TOKEN_LIFETIME_SECONDS;

export interface TestSigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

/** An Ed25519 key pair like the auth service's, with its JWKS entry. */
export async function newSigningKey(kid: string = randomUUID()): Promise<TestSigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(TOKEN_ALGORITHM, { crv: 'Ed25519', extractable: true });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: TOKEN_ALGORITHM, use: 'sig' } };
}

export function localKeys(...keys: TestSigningKey[]): JWTVerifyGetKey {
  return createLocalJWKSet({ keys: keys.map((key) => key.publicJwk) });
}

export const referrerClaims = { role: 'referrer', ik: ['260000001', '260000002'], fhirBase: 'https://demo-hospital.example/fhir' };
export const clinicClaims = { role: 'clinic', ik: ['510000001'] };

/** An access token as the auth service issues it; every part can be overridden to break it. */
export async function accessToken(
  key: TestSigningKey,
  options: {
    claims?: Record<string, unknown>;
    issuedAt?: number;
    lifetimeSeconds?: number;
    issuer?: string;
    audience?: string;
    typ?: string;
    sub?: string;
  } = {},
): Promise<string> {
  const issuedAt = options.issuedAt ?? Math.floor(Date.now() / 1000);
  return new SignJWT(options.claims ?? referrerClaims)
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, kid: key.kid, typ: options.typ ?? ACCESS_TOKEN_TYPE })
    .setSubject(options.sub ?? randomUUID())
    .setJti(randomUUID())
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + (options.lifetimeSeconds ?? HOUR))
    .sign(key.privateKey);
}

/** A service token as the auth service issues it. */
export function serviceToken(key: TestSigningKey, service: string, options: { audience?: string } = {}): Promise<string> {
  return accessToken(key, {
    claims: { role: SERVICE_ROLE },
    sub: service,
    audience: options.audience ?? SERVICE_AUDIENCE,
    lifetimeSeconds: SERVICE_TOKEN_LIFETIME_SECONDS,
  });
}

/**
 * A stand-in for the auth service's key endpoints, for tests that start one service on its own:
 * `GET /internal/jwks` with its key, `POST /internal/service-tokens` for any service that sends
 * `clientSecret`, `GET /internal/revocations` with nobody revoked. Point the service's AUTH_URL at `url`.
 */
export class TestAuthority {
  private constructor(
    readonly key: TestSigningKey,
    private readonly server: Server,
    readonly url: string,
    readonly clientSecret: string,
  ) {}

  static async start(): Promise<TestAuthority> {
    const key = await newSigningKey();
    const clientSecret = randomUUID() + randomUUID();
    const server = createServer((req, res) => {
      const answer = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method === 'GET' && req.url === '/internal/jwks') return answer(200, { keys: [key.publicJwk] });
      if (req.method === 'GET' && req.url === '/internal/revocations') return answer(200, { users: [], parties: [], asOf: new Date().toISOString() });
      if (req.method === 'POST' && req.url === '/internal/service-tokens') {
        const [service, secret] = Buffer.from((req.headers.authorization ?? '').replace(/^Basic /, ''), 'base64')
          .toString()
          .split(':');
        if (!service || secret !== clientSecret) return answer(401, { error: 'unauthorized', message: 'unknown service client' });
        void serviceToken(key, service).then((token) => answer(200, { accessToken: token, tokenType: 'Bearer', expiresIn: SERVICE_TOKEN_LIFETIME_SECONDS }));
        return;
      }
      answer(404, { error: 'not_found', message: 'no such endpoint' });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new TestAuthority(key, server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, clientSecret);
  }

  /** The environment a service needs to verify tokens and fetch its own from this authority. */
  get env(): Record<string, string> {
    return { AUTH_URL: this.url, SERVICE_CLIENT_SECRET: this.clientSecret };
  }

  referrer(sub: string, claims: Record<string, unknown> = referrerClaims): Promise<string> {
    return accessToken(this.key, { sub, claims });
  }

  clinic(sub: string, ik: string): Promise<string> {
    return accessToken(this.key, { sub, claims: { role: 'clinic', ik: [ik] } });
  }

  service(name: string): Promise<string> {
    return serviceToken(this.key, name);
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
