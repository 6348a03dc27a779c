import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { urlsOf } from './env-schemas';
import type { Infrastructure } from './infrastructure';

/**
 * Encryption in transit (docs/operations.md, "Encryption in transit"). One CA setting for every
 * client of a process: TLS_CA_FILE, a PEM bundle of the CAs that sign the certificates of
 * PostgreSQL, RabbitMQ, Redis and the services. It is read from the process's environment by each
 * client where its URL asks for TLS (sslmode=verify-full, amqps:, rediss:, https:), as Node reads
 * NODE_EXTRA_CA_CERTS, but only for those connections and in place of Node's public CAs: an
 * internal server is trusted for a certificate of the internal CA alone, and the notifier's
 * webhooks to the parties keep the public CAs alone. A service reads the files as it starts
 * (checkTlsSettings), so that a missing or garbled one is one line naming the variable.
 */

/** A TLS setting that cannot be used: its message names the variable and the file. */
export class TlsSettingError extends Error {
  override name = 'TlsSettingError';
}

/** The PEM text of `file`, checked to hold what `kind` says; TlsSettingError naming `variable` otherwise. */
export function readPemFile(variable: string, file: string, kind: 'certificates' | 'private key'): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new TlsSettingError(`${variable}: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  try {
    if (kind === 'private key') {
      createPrivateKey(text);
    } else {
      const certificates = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
      if (certificates.length === 0) throw new Error('no certificate in it');
      for (const certificate of certificates) new X509Certificate(certificate);
    }
  } catch (error) {
    throw new TlsSettingError(`${variable}: ${file} holds no usable PEM ${kind} (${(error as Error).message})`);
  }
  return text;
}

/** A file's path: optional, blank is unset. Not read here, so that a configuration can be checked where its files are not (tools/deploy). */
const path = z
  .string()
  .optional()
  .transform((value) => value?.trim() || undefined);

/** The TLS block every service reads (processEnv); its files are read and checked as the service starts (checkTlsSettings). */
export const tlsEnv = {
  /**
   * The CAs the clients verify PostgreSQL, RabbitMQ, Redis and the services' https with (a PEM
   * bundle). Unset: Node's public CAs, for servers with a public certificate.
   */
  TLS_CA_FILE: path,
  /** The service's own certificate (PEM, with its chain): set together with TLS_KEY_FILE, every port it opens serves https. */
  TLS_CERT_FILE: path,
  /** The private key of TLS_CERT_FILE (PEM). */
  TLS_KEY_FILE: path,
};

type Environment = Readonly<Record<string, string | undefined>>;

const setting = (env: Environment, variable: string) => env[variable]?.trim() || undefined;

/** TLS_CA_FILE as it was read, once per file: its path and PEM text. */
export interface TrustedCa {
  readonly file: string;
  readonly pem: string;
}

const cas = new Map<string, TrustedCa>();

/** TLS_CA_FILE of `env` (the process's), read once; undefined where unset. */
export function trustedCa(env: Environment = process.env): TrustedCa | undefined {
  const file = setting(env, 'TLS_CA_FILE');
  if (file === undefined) return undefined;
  let ca = cas.get(file);
  if (!ca) {
    ca = { file, pem: readPemFile('TLS_CA_FILE', file, 'certificates') };
    cas.set(file, ca);
  }
  return ca;
}

/** The service's certificate and key (TLS_CERT_FILE, TLS_KEY_FILE), read anew on every call (a renewed pair); undefined where unset. */
export function serverCertificate(env: Environment = process.env): { cert: string; key: string; certFile: string; keyFile: string } | undefined {
  const certFile = setting(env, 'TLS_CERT_FILE');
  const keyFile = setting(env, 'TLS_KEY_FILE');
  if (certFile === undefined && keyFile === undefined) return undefined;
  if (certFile === undefined || keyFile === undefined) throw new TlsSettingError('TLS_CERT_FILE and TLS_KEY_FILE: set both, or neither');
  return { cert: readPemFile('TLS_CERT_FILE', certFile, 'certificates'), key: readPemFile('TLS_KEY_FILE', keyFile, 'private key'), certFile, keyFile };
}

/**
 * Reads TLS_CA_FILE, TLS_CERT_FILE and TLS_KEY_FILE of `env` as a starting service does: a
 * TlsSettingError, one line naming the variable and the file, for one that cannot be used.
 */
export function checkTlsSettings(env: Environment = process.env): void {
  trustedCa(env);
  serverCertificate(env);
}

/** The protocols whose URLs ask for TLS by their scheme. */
const TLS_PROTOCOLS = new Set(['https:', 'amqps:', 'rediss:']);

/** PostgreSQL's sslmode values under which node-postgres verifies the server (verify-full; pg 8 treats prefer, require and verify-ca alike). */
const VERIFYING_SSLMODES = new Set(['prefer', 'require', 'verify-ca', 'verify-full']);

/**
 * The `ca` option of a TLS client of `url` (https:, amqps:, rediss:): TLS_CA_FILE's certificates
 * where it is set; nothing for a plain URL, or where it is unset (Node's public CAs).
 */
export function caOptionFor(url: string, env: Environment = process.env): { ca?: string } {
  if (!TLS_PROTOCOLS.has(new URL(url).protocol)) return {};
  const ca = trustedCa(env);
  return ca ? { ca: ca.pem } : {};
}

/**
 * A PostgreSQL URL as node-postgres (and Prisma's pg adapter) should read it: where its sslmode asks
 * for verification and it names no CA of its own (sslrootcert, libpq's way, read by pg itself),
 * TLS_CA_FILE is named as its sslrootcert. Anything else comes back as it was.
 */
export function postgresUrlWithCa(databaseUrl: string, env: Environment = process.env): string {
  const url = new URL(databaseUrl);
  const ca = trustedCa(env);
  if (!ca || !VERIFYING_SSLMODES.has(url.searchParams.get('sslmode') ?? '') || url.searchParams.has('sslrootcert')) return databaseUrl;
  url.searchParams.set('sslrootcert', ca.file);
  return url.toString();
}

/** How a client of a piece of infrastructure verifies it: the CA's PEM (none: Node's public CAs) and where it came from, for messages. */
export interface ClientTls {
  readonly ca?: string;
  readonly checkedAgainst: string;
}

/** Whether the clients of `piece` speak TLS to it, and against which CA; undefined for plain connections. */
export function clientTlsOf(piece: Infrastructure, env: Environment = process.env): ClientTls | undefined {
  const [first] = urlsOf(piece.url);
  if (first === undefined) return undefined;
  const url = new URL(first);
  if (piece.name === 'PostgreSQL') {
    if (!VERIFYING_SSLMODES.has(url.searchParams.get('sslmode') ?? '')) return undefined;
    const rootCert = url.searchParams.get('sslrootcert');
    if (rootCert) return { ca: readPemFile(`${piece.variable} sslrootcert`, rootCert, 'certificates'), checkedAgainst: `sslrootcert ${rootCert}` };
  } else if (!TLS_PROTOCOLS.has(url.protocol)) {
    return undefined;
  }
  const ca = trustedCa(env);
  return ca ? { ca: ca.pem, checkedAgainst: `TLS_CA_FILE ${ca.file}` } : { checkedAgainst: "Node's public CAs (TLS_CA_FILE unset)" };
}
