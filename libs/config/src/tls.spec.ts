import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { postgresOf, rabbitMqOf, redisOf } from './infrastructure';
import { loadConfig } from './load-config';
import { databaseEnv } from './shared-env';
import { caOptionFor, checkTlsSettings, clientTlsOf, postgresUrlWithCa, serverCertificate, tlsEnv } from './tls';

describe('TLS settings (docs/operations.md, "Encryption in transit")', () => {
  let folder: string;
  let caFile: string;
  let keyFile: string;

  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'tls-settings-'));
    caFile = join(folder, 'ca.crt');
    keyFile = join(folder, 'ca.key');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=test CA'].concat([
        '-keyout',
        keyFile,
        '-out',
        caFile,
      ]),
      {
        stdio: 'pipe',
      },
    );
    writeFileSync(join(folder, 'garbled.crt'), '-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n');
  });

  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('reads the files as a service starts, with one line naming the variable and the file for one it cannot use', () => {
    expect(loadConfig(z.object(tlsEnv), { TLS_CA_FILE: ` ${caFile} `, TLS_CERT_FILE: '' })).toEqual({ TLS_CA_FILE: caFile });
    expect(() => checkTlsSettings({ TLS_CA_FILE: caFile, TLS_CERT_FILE: caFile, TLS_KEY_FILE: keyFile })).not.toThrow();
    expect(() => checkTlsSettings({ TLS_CA_FILE: join(folder, 'missing.crt') })).toThrow(`TLS_CA_FILE: cannot read ${join(folder, 'missing.crt')} (ENOENT)`);
    expect(() => checkTlsSettings({ TLS_CA_FILE: join(folder, 'garbled.crt') })).toThrow(
      new RegExp(`^TLS_CA_FILE: ${join(folder, 'garbled.crt')} holds no usable PEM certificates`),
    );
    expect(() => checkTlsSettings({ TLS_CERT_FILE: caFile, TLS_KEY_FILE: caFile })).toThrow(
      new RegExp(`^TLS_KEY_FILE: ${caFile} holds no usable PEM private key`),
    );
  });

  it('serves with a certificate only given both files', () => {
    expect(serverCertificate({})).toBeUndefined();
    expect(serverCertificate({ TLS_CERT_FILE: caFile, TLS_KEY_FILE: keyFile })).toMatchObject({ certFile: caFile, keyFile });
    expect(() => serverCertificate({ TLS_CERT_FILE: caFile })).toThrow('TLS_CERT_FILE and TLS_KEY_FILE: set both, or neither');
  });

  it('gives the clients of amqps, rediss and https URLs the CA of TLS_CA_FILE, and nothing to plain ones', () => {
    const env = { TLS_CA_FILE: caFile };
    for (const url of ['amqps://u:p@mq:5671', 'rediss://u:p@redis:6379', 'https://auth:8081']) expect(caOptionFor(url, env).ca).toContain('BEGIN CERTIFICATE');
    for (const url of ['amqp://u:p@mq:5672', 'redis://redis:6379', 'http://auth:8081']) expect(caOptionFor(url, env)).toEqual({});
    expect(caOptionFor('https://auth:8081', {})).toEqual({});
  });

  it("names TLS_CA_FILE as a PostgreSQL URL's sslrootcert where it asks for verification and names no CA itself", () => {
    const env = { TLS_CA_FILE: caFile };
    const withCa = new URL(postgresUrlWithCa('postgresql://u:p@db:5432/bedrequest?sslmode=verify-full', env));
    expect(Object.fromEntries(withCa.searchParams)).toEqual({ sslmode: 'verify-full', sslrootcert: caFile });
    expect(withCa.username).toBe('u');
    const own = 'postgresql://u:p@db:5432/bedrequest?sslmode=verify-full&sslrootcert=%2Fetc%2Fown.crt';
    for (const url of [own, 'postgresql://u:p@db:5432/bedrequest', 'postgresql://u:p@db:5432/bedrequest?sslmode=disable']) {
      expect(postgresUrlWithCa(url, env)).toBe(url);
    }
    expect(postgresUrlWithCa('postgresql://u:p@db:5432/bedrequest?sslmode=verify-full', {})).toBe('postgresql://u:p@db:5432/bedrequest?sslmode=verify-full');
  });

  it('says for each server whether its clients speak TLS and against which CA they verify it', () => {
    const env = { TLS_CA_FILE: caFile };
    expect(clientTlsOf(postgresOf({ DATABASE_URL: 'postgresql://u:p@db/bedrequest' }), env)).toBeUndefined();
    expect(clientTlsOf(postgresOf({ DATABASE_URL: 'postgresql://u:p@db/bedrequest?sslmode=verify-full' }), env)?.checkedAgainst).toBe(`TLS_CA_FILE ${caFile}`);
    expect(
      clientTlsOf(postgresOf({ DATABASE_URL: `postgresql://u:p@db/bedrequest?sslmode=verify-full&sslrootcert=${encodeURIComponent(caFile)}` }), {})
        ?.checkedAgainst,
    ).toBe(`sslrootcert ${caFile}`);
    expect(clientTlsOf(rabbitMqOf({ AMQP_URL: 'amqps://u:p@mq-0:5671,amqps://u:p@mq-1:5671' }), env)?.ca).toContain('BEGIN CERTIFICATE');
    expect(clientTlsOf(redisOf({ REDIS_URL: 'rediss://u:p@redis:6379' }), {})).toEqual({ checkedAgainst: "Node's public CAs (TLS_CA_FILE unset)" });
    expect(clientTlsOf(redisOf({ REDIS_URL: 'redis://redis:6379' }), env)).toBeUndefined();
  });

  it('takes sslmode verify-full or disable in DATABASE_URL, and refuses the modes node-postgres reads otherwise than libpq', () => {
    const database = z.object(databaseEnv('TEST_DB_SCHEMA', 'test'));
    for (const sslmode of ['verify-full', 'disable']) {
      expect(() => loadConfig(database, { DATABASE_URL: `postgresql://u:p@db/bedrequest?sslmode=${sslmode}` })).not.toThrow();
    }
    for (const sslmode of ['require', 'verify-ca', 'prefer', 'no-verify']) {
      expect(() => loadConfig(database, { DATABASE_URL: `postgresql://u:p@db/bedrequest?sslmode=${sslmode}` })).toThrow(
        /DATABASE_URL: sslmode must be verify-full/,
      );
    }
  });
});
