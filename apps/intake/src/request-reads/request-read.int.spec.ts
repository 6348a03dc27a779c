import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Client } from 'pg';
import { listen } from '@bedrequest/observability';
import { silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { createTokenVerifier } from '@bedrequest/tokens';
import { AUDIENCE, ISSUER, accessToken, localKeys, newSigningKey, type TestSigningKey } from '@bedrequest/tokens/testing';
import { AuditTrail, AuditTrailRepository } from '../audit';
import { openIntakeDatabase, prismaRunner, sealedFor, type IntakeDatabase, type SealedFields } from '../persistence';
import { testSealedFields } from '../testing';
import { requestReadRouter } from './request-read.router';
import { RequestReadService } from './request-read.service';

const env = testEnvironment();
const BASE = 'https://hospital.example/fhir/ServiceRequest';
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A stored version's bundle: a ServiceRequest as sent (status active), a Patient, and a transaction-like `request` the searchset must not carry. */
const versionBundle = (version: number) => ({
  resourceType: 'Bundle',
  type: 'collection',
  entry: [
    {
      fullUrl: 'urn:uuid:00000000-0000-4000-8000-000000000001',
      resource: { resourceType: 'ServiceRequest', id: 'sr', status: 'active', note: [{ text: `v${version}` }] },
    },
    { fullUrl: 'urn:uuid:00000000-0000-4000-8000-000000000002', resource: { resourceType: 'Patient', id: 'p' }, request: { method: 'POST', url: 'Patient' } },
  ],
});

/** Intake's read of a request by its referrer over HTTP, as the gateway calls it, against the real PostgreSQL. */
describe('intake internal request read', () => {
  const schema = uniqueName('intake');
  let prisma: IntakeDatabase;
  let fields: SealedFields;
  let server: Server;
  let baseUrl: string;
  let owner: Record<string, string>;
  let key: TestSigningKey;
  const revokedAt = new Date(Date.UTC(2026, 10, 2, 9, 30));
  const erasedAt = new Date(Date.UTC(2026, 10, 3, 12, 0));

  beforeAll(async () => {
    key = await newSigningKey();
    owner = bearer(await accessToken(key, { sub: 'referrer-1' }));
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    fields = await testSealedFields(prisma, schema);
    const client = new Client({ connectionString: env.databaseUrl });
    await client.connect();
    try {
      // A request revoked in the service while its stored versions say active, and an erased one.
      for (const [identifier, status, versions] of [
        [`${BASE}/revoked`, 'revoked', 2],
        [`${BASE}/erased`, 'active', 0],
      ] as const) {
        const id = crypto.randomUUID();
        await client.query(
          `INSERT INTO "${schema}".admission_request (id, identifier, referrer_party_id, referrer_ik, status, intent, current_version, latest_hash, updated_at)
           VALUES ($1, $2, 'referrer-1', '260000001', $3, 'proposal', $4, 'hash', now())`,
          [id, identifier, status, Math.max(versions, 1)],
        );
        for (let version = 1; version <= versions; version++) {
          await client.query(
            `INSERT INTO "${schema}".request_version (request_id, version, sealed_bundle, sealed_summary, canonical_hash, message_id, received_at, sent_to, submitted_by)
             VALUES ($1, $2, $3, $4, 'hash', $5, $6, '{}', 'referrer-1')`,
            [id, version, fields.seal(sealedFor.bundle(id, version), versionBundle(version)), fields.seal('unused', {}), crypto.randomUUID(), revokedAt],
          );
        }
        if (versions === 0) {
          await client.query(
            `INSERT INTO "${schema}".request_erasure (request_id, erased_at, reason, versions, documents) VALUES ($1, $2, 'requested', 1, 0)`,
            [id, erasedAt],
          );
        }
      }
    } finally {
      await client.end();
    }
    const verifier = createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE });
    const audit = new AuditTrail(new AuditTrailRepository(prismaRunner(prisma), schema));
    server = await listen(express().use(requestReadRouter(new RequestReadService(prisma, fields, audit), verifier, silentLogger())), 0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await prisma.$disconnect();
  });

  const get = async (query: string, headers = owner) => {
    const response = await fetch(`${baseUrl}/internal/requests${query}`, { headers: { ...headers, 'x-public-base': 'https://api.example/' } });
    return { status: response.status, type: response.headers.get('content-type'), body: (await response.json()) as Record<string, unknown> };
  };
  const by = (identifier: string) => `?identifier=${encodeURIComponent(identifier)}`;

  it('answers the latest version with the status the service holds, its version and when it came, and the entries without their request', async () => {
    const answer = await get(by(`${BASE}/revoked`));

    expect(answer).toMatchObject({ status: 200, type: 'application/fhir+json; charset=utf-8' });
    expect(answer.body).toEqual({
      resourceType: 'Bundle',
      type: 'searchset',
      total: 1,
      link: [{ relation: 'self', url: `https://api.example/api/v2/fhir/ServiceRequest${by(`${BASE}/revoked`)}` }],
      entry: [
        {
          fullUrl: 'urn:uuid:00000000-0000-4000-8000-000000000001',
          resource: {
            resourceType: 'ServiceRequest',
            id: 'sr',
            status: 'revoked',
            note: [{ text: 'v2' }],
            meta: { versionId: '2', lastUpdated: revokedAt.toISOString() },
          },
          search: { mode: 'match' },
        },
        { fullUrl: 'urn:uuid:00000000-0000-4000-8000-000000000002', resource: { resourceType: 'Patient', id: 'p' }, search: { mode: 'include' } },
      ],
    });
    expect((await get(by(`urn:ietf:rfc:3986|${BASE}/revoked`))).body.entry).toEqual(answer.body.entry);
  });

  it("answers an empty searchset for another referrer's request and an unknown one, 410 for an erased one, 403 to a clinic", async () => {
    const stranger = bearer(await accessToken(key, { sub: 'referrer-2' }));
    const empty = { resourceType: 'Bundle', type: 'searchset', total: 0, link: [{ relation: 'self', url: expect.any(String) }] };
    for (const [identifier, token] of [
      [`${BASE}/unknown`, owner],
      [`${BASE}/revoked`, stranger],
      [`${BASE}/erased`, stranger],
    ] as const) {
      expect({ identifier, ...(await get(by(identifier), token)) }).toEqual({
        identifier,
        status: 200,
        type: 'application/fhir+json; charset=utf-8',
        body: empty,
      });
    }
    const clinic = bearer(await accessToken(key, { sub: 'clinic-user', claims: { role: 'clinic', ik: ['510000001'] } }));
    expect((await get(by(`${BASE}/revoked`), clinic)).status).toBe(403);

    const erased = await get(by(`${BASE}/erased`));
    expect(erased.status).toBe(410);
    expect(erased.body).toMatchObject({
      resourceType: 'OperationOutcome',
      issue: [{ code: 'deleted', diagnostics: expect.stringContaining(erasedAt.toISOString()) }],
    });
  });

  it('refuses a missing, malformed or repeated identifier and any other parameter with 400, another _format with 406', async () => {
    for (const query of [
      '',
      '?identifier=',
      '?identifier=no%20uri',
      `${by(`${BASE}/x`)}&identifier=urn:y`,
      `${by(`${BASE}/x`)}&_count=1`,
      `?identifier=${'x:'.repeat(1100)}`,
    ]) {
      const answer = await get(query);
      expect({ query: query.slice(0, 80), status: answer.status, type: answer.body.resourceType }).toEqual({
        query: query.slice(0, 80),
        status: 400,
        type: 'OperationOutcome',
      });
    }
    expect((await get(`${by(`${BASE}/revoked`)}&_format=xml`)).status).toBe(406);
    expect((await get(`${by(`${BASE}/revoked`)}&_format=json`)).status).toBe(200);
  });

  it('records a read that answered a request in the audit trail, with the person and the version', async () => {
    const client = new Client({ connectionString: env.databaseUrl });
    await client.connect();
    try {
      const count = async () =>
        Number(
          (await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".audit_events WHERE request_identifier = $1`, [`${BASE}/revoked`])).rows[0]
            ?.n,
        );
      const before = await count();
      await get(by(`${BASE}/revoked`));
      expect(await count()).toBe(before + 1);
      const { rows } = await client.query<{ agent_user: string; resource: { subtype: { code: string }[]; entity: { detail?: { valueString: string }[] }[] } }>(
        `SELECT agent_user, resource FROM "${schema}".audit_events WHERE request_identifier = $1 ORDER BY recorded DESC, seq DESC LIMIT 1`,
        [`${BASE}/revoked`],
      );
      expect(rows[0]).toMatchObject({
        agent_user: 'referrer-1',
        resource: { subtype: [{ code: 'search-type' }], entity: [{ detail: [{ valueString: '2' }] }, {}] },
      });
      // Nothing found, nothing recorded.
      await get(by(`${BASE}/erased`));
      expect(
        Number(
          (await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${schema}".audit_events WHERE request_identifier = $1`, [`${BASE}/erased`])).rows[0]
            ?.n,
        ),
      ).toBe(0);
    } finally {
      await client.end();
    }
  });
});
