import { createHash, createPrivateKey, generateKeyPairSync, randomUUID } from 'node:crypto';
import { intakeTable, sealedFor, type IntakeDatabase, type SealedFields } from '../persistence';
import type { RecordPublicKeys, RecordSigner } from './record-signature';

/** A public key that verifies records, as GET /api/v1/records/jwks serves it (RFC 8037). */
export interface RecordPublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

interface KeyRow {
  id: string;
  kid: string;
  public_x: string;
  sealed_private_key: Uint8Array;
  created_at: Date;
}

/** A sealed private key: the JWK's `d` and `x`. */
interface SealedPrivateKey {
  d: string;
  x: string;
}

export interface RecordSigningKeyOptions {
  /** RECORD_SIGNING_KEY_MAX_AGE_DAYS: a key older than this signs no more; a new one is made. */
  maxAgeDays: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The service's own Ed25519 keys for the payer's records (migration 0014; docs/operations.md,
 * "Record signing keys"), rotated as auth rotates the token keys: the newest key signs, every key
 * ever made verifies (a record goes to a payer and a court months or years later, so no public key
 * is dropped). A key older than maxAgeDays is replaced on the next signature, and `npm run admin --
 * record rotate-key` replaces it at once. The private key is sealed with intake's data keys.
 */
export class RecordSigningKeys {
  private readonly table;

  constructor(
    private readonly prisma: IntakeDatabase,
    private readonly schema: string,
    private readonly fields: SealedFields,
    private readonly options: RecordSigningKeyOptions,
  ) {
    this.table = intakeTable(schema, 'record_signing_key');
  }

  /** The key to sign with at `now`: the newest, or a new one when there is none or it is older than maxAgeDays. */
  async signer(now: Date): Promise<RecordSigner> {
    const newest = await this.newest();
    const fresh = newest && now.getTime() - newest.created_at.getTime() < this.options.maxAgeDays * DAY_MS;
    return this.signerOf(fresh ? newest : await this.addKey(now, newest?.id ?? null));
  }

  /** Makes a new signing key, which signs from now on (the admin command `record rotate-key`): its kid. */
  async rotate(now: Date): Promise<string> {
    return (await this.addKey(now)).kid;
  }

  /**
   * Makes a new signing key; with `replacing` (the newest key's id when it was read, null for none)
   * only unless another process made one since, so that replicas rotating at once make one key: a
   * transaction-level advisory lock of the schema serialises them. Answers the key that signs.
   */
  private async addKey(now: Date, replacing?: string | null): Promise<KeyRow> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`record_signing_key:${this.schema}`}, 0))::text AS locked`;
      const [newest] = await tx.$queryRaw<KeyRow[]>`
        SELECT id::text AS id, kid, public_x, sealed_private_key, created_at FROM ${this.table} ORDER BY created_at DESC, kid DESC LIMIT 1`;
      if (replacing !== undefined && newest && newest.id !== replacing) return newest;
      const { privateKey } = generateKeyPairSync('ed25519');
      const jwk = privateKey.export({ format: 'jwk' }) as SealedPrivateKey;
      const id = randomUUID();
      const kid = thumbprintOf(jwk.x);
      const sealed = this.fields.seal(sealedFor.recordSigningKey(id), { d: jwk.d, x: jwk.x } satisfies SealedPrivateKey);
      await tx.$executeRaw`
        INSERT INTO ${this.table} (id, kid, public_x, sealed_private_key, created_at) VALUES (${id}::uuid, ${kid}, ${jwk.x}, ${sealed}, ${now})`;
      return { id, kid, public_x: jwk.x, sealed_private_key: sealed, created_at: now };
    });
  }

  /** Every public key, newest first: the JWKS. */
  async publicJwks(): Promise<RecordPublicJwk[]> {
    const rows = await this.prisma.$queryRaw<Pick<KeyRow, 'kid' | 'public_x'>[]>`
      SELECT kid, public_x FROM ${this.table} ORDER BY created_at DESC, kid DESC`;
    return rows.map((row) => ({ kty: 'OKP', crv: 'Ed25519', x: row.public_x, kid: row.kid, alg: 'EdDSA', use: 'sig' }));
  }

  /** The public keys by kid, for verifyRecord. */
  async publicKeys(): Promise<RecordPublicKeys> {
    return new Map((await this.publicJwks()).map((jwk) => [jwk.kid, jwk.x]));
  }

  /** The keys with when each was made, newest first (the CLI's `record keys`). */
  async list(): Promise<{ kid: string; createdAt: Date }[]> {
    const rows = await this.prisma.$queryRaw<Pick<KeyRow, 'kid' | 'created_at'>[]>`
      SELECT kid, created_at FROM ${this.table} ORDER BY created_at DESC, kid DESC`;
    return rows.map((row) => ({ kid: row.kid, createdAt: row.created_at }));
  }

  private async newest(): Promise<KeyRow | undefined> {
    const [row] = await this.prisma.$queryRaw<KeyRow[]>`
      SELECT id::text AS id, kid, public_x, sealed_private_key, created_at FROM ${this.table} ORDER BY created_at DESC, kid DESC LIMIT 1`;
    return row;
  }

  private async signerOf(row: KeyRow): Promise<RecordSigner> {
    const opened = await this.fields.open<SealedPrivateKey>(sealedFor.recordSigningKey(row.id), row.sealed_private_key);
    return { kid: row.kid, privateKey: createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: opened.d, x: opened.x }, format: 'jwk' }) };
  }
}

/** RFC 7638 thumbprint of an Ed25519 public key: SHA-256 over its required members in lexical order, base64url. */
export function thumbprintOf(x: string): string {
  return createHash('sha256')
    .update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x }))
    .digest('base64url');
}
