import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@bedrequest/config';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { openUserAdministration } from '../cli';
import { AuthCliConfig } from '../config';
import type { Party } from '../parties/party';
import { PartyRepository } from '../parties/party.repository';
import { openAuthDatabase, type AuthDatabase } from '../persistence/database';
import { ecKey, jwksOf, rsaKey } from '../testing/client-assertions';
import { CLIENT_CLI } from './client.cli';

/** `npm run admin -- client ...` in-process against the real PostgreSQL (docs/parties.md, "System clients and scopes"). */
describe('npm run admin -- client ...', () => {
  const directory = mkdtempSync(join(tmpdir(), 'client-cli-'));
  let config: AuthCliConfig;
  let prisma: AuthDatabase;
  let referrer: Party;
  let clinic: Party;

  beforeAll(async () => {
    config = loadConfig(AuthCliConfig, { NODE_ENV: 'test', DATABASE_URL: testEnvironment().databaseUrl, AUTH_DB_SCHEMA: uniqueName('auth_client_cli') });
    prisma = await openAuthDatabase({ databaseUrl: config.DATABASE_URL, schema: config.AUTH_DB_SCHEMA, poolSize: 1 });
    const parties = new PartyRepository(prisma);
    referrer = await parties.create({ role: 'referrer', name: 'Klinikum Nord', ikNumbers: ['260000001'], fhirBase: 'https://nord.example/fhir' });
    clinic = await parties.create({ role: 'clinic', name: 'Rehaklinik Waldsee', ikNumbers: ['510000001'] });
  });
  afterAll(() => prisma.$disconnect());

  const admin = async (argv: string[], overrides: Partial<AuthCliConfig> = {}) => {
    const out: string[] = [];
    const err: string[] = [];
    const open = () => openUserAdministration({ config: { ...config, ...overrides } });
    const code = await CLIENT_CLI.run(argv, { open, out: (line) => out.push(line), err: (line) => err.push(line), stdin: async () => '' });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
  let files = 0;
  const file = (content: unknown) => {
    files += 1;
    const path = join(directory, `jwks-${files}.json`);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const refusal = (code: number, err: string | RegExp) => ({ code, out: '', err: typeof err === 'string' ? err : expect.stringMatching(err) });

  it('registers a client with a JWKS file and every scope of its role, prints its id, and lists it', async () => {
    const [rsa, ec] = [rsaKey('rsa-1'), ecKey('ec-1')];
    const result = await admin(['client', 'create', '--party', clinic.id, '--name', 'Waldsee KIS', '--jwks-file', file(jwksOf(rsa, ec))]);

    expect(result.code).toBe(0);
    const [id, line] = result.out.split('\n');
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(line).toBe(
      `registered client ${id} "Waldsee KIS" jwks kid rsa-1,ec-1, every scope of the party's role, active for clinic party ${clinic.id} "Rehaklinik Waldsee"`,
    );
    const stored = await prisma.systemClient.findUniqueOrThrow({ where: { id: id! } });
    expect(stored).toMatchObject({ partyId: clinic.id, jwks: jwksOf(rsa, ec), jwksUrl: null, disabledAt: null });
    expect(stored.scopes ?? []).toEqual([]);
    expect((await admin(['client', 'list', '--party', clinic.id])).out).toContain(`client ${id} "Waldsee KIS"`);
  });

  it('registers a client with a jwks_url and scopes, and lists it with the party’s clients only', async () => {
    const result = await admin([
      'client',
      'create',
      '--party',
      referrer.id,
      '--name',
      'Nord',
      '--jwks-url',
      'https://keys.nord.example/jwks.json',
      '--scope',
      'system/Bundle.c  system/Task.rs system/Task.rs',
    ]);

    expect(result.code).toBe(0);
    const id = result.out.split('\n')[0]!;
    expect(await prisma.systemClient.findUniqueOrThrow({ where: { id } })).toMatchObject({
      jwks: null,
      jwksUrl: 'https://keys.nord.example/jwks.json',
      scopes: ['system/Bundle.c', 'system/Task.rs'],
    });
    const listed = await admin(['client', 'list', '--party', referrer.id]);
    expect(listed.out).toBe(
      `client ${id} "Nord" jwks-url https://keys.nord.example/jwks.json, scope "system/Bundle.c system/Task.rs", active, party ${referrer.id}`,
    );
  });

  it('disables a client once, and says so again; an unknown client fails', async () => {
    const id = (await admin(['client', 'create', '--party', clinic.id, '--name', 'Kurz', '--jwks-file', file(jwksOf(ecKey()))])).out.split('\n')[0]!;

    expect(await admin(['client', 'disable', '--id', id])).toEqual({ code: 0, out: `disabled client ${id}`, err: '' });
    const disabledAt = (await prisma.systemClient.findUniqueOrThrow({ where: { id } })).disabledAt;
    expect(disabledAt).toBeInstanceOf(Date);
    expect(await admin(['client', 'disable', '--id', id])).toEqual({ code: 0, out: `client ${id} was already disabled`, err: '' });
    expect((await prisma.systemClient.findUniqueOrThrow({ where: { id } })).disabledAt).toEqual(disabledAt);
    expect((await admin(['client', 'list'])).out).toContain(`client ${id} "Kurz" jwks kid`);
    expect(await admin(['client', 'disable', '--id', '00000000-0000-4000-8000-000000000000'])).toEqual(
      refusal(1, 'error: no client with id 00000000-0000-4000-8000-000000000000'),
    );
  });

  describe('refuses, with one line and nothing stored', () => {
    const create = (keys: string[], extra: string[] = [], overrides: Partial<AuthCliConfig> = {}) =>
      admin(['client', 'create', '--party', referrer.id, '--name', 'Refused', ...keys, ...extra], overrides);
    let before: number;
    beforeEach(async () => {
      before = await prisma.systemClient.count();
    });
    afterEach(async () => {
      expect(await prisma.systemClient.count()).toBe(before);
    });

    it.each([
      [
        'a private key',
        () => ({ keys: [{ ...rsaKey('p').privateKey.export({ format: 'jwk' }), kid: 'p' }] }),
        'key 1: holds the private member "d": register public keys only',
      ],
      ['a symmetric key', () => ({ keys: [{ kty: 'oct', k: 'c2VjcmV0', kid: 's' }] }), 'key 1: holds the private member "k": register public keys only'],
      ['an RSA key under 2048 bits', () => jwksOf(rsaKey('small', 1024)), 'key 1: the RSA key has 1024 bits (at least 2048)'],
      ['an EC key on P-256', () => jwksOf(ecKey('p256', 'P-256')), 'key 1: EC keys must be on P-384 (ES384), not P-256'],
      ['a key without kid', () => ({ keys: [{ ...ecKey().jwk, kid: undefined }] }), 'key 1: has no kid (1 to 200 characters)'],
      ['two keys with one kid', () => jwksOf(ecKey('same'), rsaKey('same')), 'key 2: kid "same" is used by another key of the JWKS'],
      ['an RSA key for RS256', () => ({ keys: [{ ...rsaKey('r').jwk, alg: 'RS256' }] }), "key 1: an RSA key's alg must be RS384, not RS256"],
      ['no keys', () => ({ keys: [] }), 'the JWKS holds no key'],
      ['a JWK that is not a JWKS', () => ecKey().jwk, 'not a JWKS (a JSON object with a "keys" array)'],
    ])('a JWKS file with %s', async (_, jwks, reason) => {
      expect(await create(['--jwks-file', file(jwks())])).toEqual(refusal(1, `error: --jwks-file refused: ${reason}`));
    });

    it('a JWKS file that is not JSON, or is not there', async () => {
      const path = file('{"keys": [');
      expect(await create(['--jwks-file', path])).toEqual(refusal(1, `error: --jwks-file ${path} is not JSON`));
      expect(await create(['--jwks-file', join(directory, 'missing.json')])).toEqual(
        refusal(1, `error: cannot read --jwks-file ${join(directory, 'missing.json')} (ENOENT)`),
      );
    });

    it('both or neither of --jwks-url and --jwks-file', async () => {
      const usage = /^error: give the public keys with --jwks-url or with --jwks-file, one of them; see npm run admin -- client --help$/;
      expect(await create([])).toEqual(refusal(2, usage));
      expect(await create(['--jwks-url', 'https://keys.example/jwks', '--jwks-file', file(jwksOf(ecKey()))])).toEqual(refusal(2, usage));
    });

    it('a scope the party’s role may not hold, or none', async () => {
      expect(await create(['--jwks-file', file(jwksOf(ecKey()))], ['--scope', 'system/Task.rs api:clinic'])).toEqual(
        refusal(1, 'error: --scope refused for a referrer party: this client may not be granted "api:clinic" (api:clinic)'),
      );
      expect(await create(['--jwks-file', file(jwksOf(ecKey()))], ['--scope', 'patient/Task.r'])).toEqual(
        refusal(1, /^error: --scope refused for a referrer party: "patient\/Task.r" is not a scope/),
      );
      expect(await create(['--jwks-file', file(jwksOf(ecKey()))], ['--scope', '  '])).toEqual(
        refusal(1, 'error: --scope names no scope (leave it out for every scope of the role)'),
      );
    });

    it('an http jwks_url in production', async () => {
      expect(await create(['--jwks-url', 'http://keys.example/jwks'], [], { NODE_ENV: 'production' })).toEqual(
        refusal(1, 'error: --jwks-url refused: the jwks_url must be https in production'),
      );
    });

    it.each([
      ['https://127.0.0.1:8443/jwks', 'the jwks_url resolves to a loopback address'],
      ['https://localhost/jwks', 'the jwks_url resolves to a loopback address'],
      ['https://[fd00::1]/jwks', 'the jwks_url resolves to a unique local (private) address'],
      ['https://10.1.2.3/jwks', 'the jwks_url resolves to a private address'],
      ['https://user:pw@keys.example/jwks', 'the jwks_url must not carry credentials'],
      ['keys.example/jwks', 'the jwks_url is not a URL'],
    ])('the jwks_url %s with CLIENT_JWKS_ALLOW_PRIVATE=false', async (url, reason) => {
      expect(await create(['--jwks-url', url], [], { CLIENT_JWKS_ALLOW_PRIVATE: false })).toEqual(refusal(1, `error: --jwks-url refused: ${reason}`));
    });

    it('an unknown or disabled party', async () => {
      const jwks = file(jwksOf(ecKey()));
      const unknown = '00000000-0000-4000-8000-000000000000';
      expect(await admin(['client', 'create', '--party', unknown, '--name', 'X', '--jwks-file', jwks])).toEqual(
        refusal(1, `error: no party with id ${unknown}`),
      );
      const parties = new PartyRepository(prisma);
      const closed = await parties.create({ role: 'clinic', name: 'Geschlossen', ikNumbers: ['510000002'] });
      await parties.disable(closed.id, new Date());
      expect(await admin(['client', 'create', '--party', closed.id, '--name', 'X', '--jwks-file', jwks])).toEqual(
        refusal(1, `error: party ${closed.id} is disabled`),
      );
    });
  });

  it('prints its usage', async () => {
    const help = await admin(['client', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('client create');
    expect(help.out).toContain('--jwks-url');
  });
});
