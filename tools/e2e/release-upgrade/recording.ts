// What a recording of an earlier release's stack holds (tools/e2e/fixtures/release-1.0/README.md):
// shared by the script that records it inside that release's worktree (record-1.0.driver.ts, which
// runs there with this file beside it, so it imports nothing but Node) and by the test that
// upgrades from it (restore.ts, release-1.0-upgrade.int.spec.ts).

/** The services that keep a schema, one dump each (`<service>.sql`). */
export const SCHEMA_SERVICES = ['auth', 'intake', 'routing', 'notifier'] as const;
export type SchemaService = (typeof SCHEMA_SERVICES)[number];

/**
 * The recording stack's schemas are `<prefix><service>`, so that the dumps name them alike on every
 * recording; the test puts each into its own stack's schema of that service.
 */
export const RECORDED_SCHEMA_PREFIX = 'release_1_0_';

/**
 * The key-encryption key the recording stack sealed its data with (DATA_KEK, docs/data-protection.md):
 * a test key, made for this fixture alone, which the upgraded stack is given too. Without it nothing
 * intake or the notifier sealed opens, and no anchor of the audit trail verifies.
 */
export const RECORDING_DATA_KEK = 'dIf9ZE3pnpxSa7EIh9Kk7j3sMaySBdQscIP1Bvucgwg=';

/** One key of auth's in Redis, its name after the stack's REDIS_KEY_PREFIX (`auth:refresh:token:<sha256>`). */
export type RecordedRedisKey =
  | { key: string; type: 'string'; value: string; ttlMs: number }
  | { key: string; type: 'hash'; value: Record<string, string>; ttlMs: number }
  | { key: string; type: 'set'; value: string[]; ttlMs: number }
  | { key: string; type: 'list'; value: string[]; ttlMs: number }
  | { key: string; type: 'zset'; value: [member: string, score: string][]; ttlMs: number };

/** A user of the recorded release, logged in, with the refresh token its last login or refresh left it. */
export interface RecordedUser {
  username: string;
  password: string;
  /** Its id, as `user create` printed it; the `sub` of its tokens in that release. */
  id: string;
  role: 'referrer' | 'clinic';
  ikNumbers: string[];
  /** Disabled with `user disable` after its login: its refresh token is still stored. */
  disabled: boolean;
  /** Live when recorded: neither used nor revoked, its family valid. */
  refreshToken: string;
}

export interface RecordedRequest {
  identifier: string;
  taskId: string;
  /** The clinic's answer, where it answered. */
  answer?: { businessStatus: 'accepted'; note: string };
  /** The text of the one document sent for it, where one was. */
  document?: string;
}

/** recording.json: what the test needs to know of what the recorded stack was told. */
export interface Recording {
  release: string;
  /** The commit the recording stack ran. */
  commit: string;
  recordedAt: string;
  schemaPrefix: string;
  /** The environment the recording stack ran with beyond the test defaults: the keys. */
  keys: { DATA_KEK: string };
  clinic: { ik: string; name: string; departments: string[] };
  referrer: RecordedUser;
  clinicUser: RecordedUser;
  /** A referrer disabled after its login. */
  disabledUser: RecordedUser;
  requests: RecordedRequest[];
  /** The referrer's webhook subscription; its secret is what the notifier sealed. */
  subscription: { id: string; eventType: string; callbackUrl: string; secret: string };
}
