import { Client } from 'pg';
import { applyMigrations, ensureDatabase, readMigrations } from '@bedrequest/persistence';
import type { DatabasePrincipal } from './plan';

/**
 * Per service two roles (docs/operations.md, "Provisioning"): `<namespace>_<service>_owner` owns the
 * schema and every object in it and runs the migrations (provisioning applies them with `SET ROLE`;
 * it never logs in), `<namespace>_<service>_app` logs in and may read and write the schema's tables
 * and use its sequences and functions, nothing more. It owns nothing, so it can neither change a
 * table nor disable or drop a trigger (the audit trail's append-only one among them), and it has no
 * right on any other service's schema. A schema's view readers (KEDA) may read those views alone.
 * Idempotent: run again, it sets the passwords and grants anew.
 */
export async function provisionDatabase(
  adminUrl: string,
  principals: readonly DatabasePrincipal[],
  migrationsDirOf: (service: string) => string,
): Promise<string[]> {
  await ensureDatabase(adminUrl);
  const changes: string[] = [];
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    changes.push(...(await revokeCreateOnPublic(client)));
    for (const principal of principals) {
      const owner = client.escapeIdentifier(principal.owner);
      const app = client.escapeIdentifier(principal.app);
      const schema = client.escapeIdentifier(principal.schema);
      // Both made without login; the runtime role gets its login and password below.
      for (const role of [principal.owner, principal.app]) {
        const { rowCount } = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
        if (!rowCount) {
          await client.query(`CREATE ROLE ${client.escapeIdentifier(role)} NOLOGIN`);
          changes.push(`PostgreSQL: role ${role} created`);
        }
      }
      await client.query(`ALTER ROLE ${app} LOGIN PASSWORD ${client.escapeLiteral(principal.password)}`);
      // A provisioning role that is not a superuser (a managed database's administrator) must be a
      // member of the owner to act as it.
      await client.query(`GRANT ${owner} TO CURRENT_USER`).catch(() => undefined);
      const { rowCount: schemaExists } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [principal.schema]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema} AUTHORIZATION ${owner}`);
      if (!schemaExists) changes.push(`PostgreSQL: schema ${principal.schema} created, owned by ${principal.owner}`);
      changes.push(...(await handOver(client, principal)));
      await client.query(`GRANT USAGE ON SCHEMA ${schema} TO ${app}`);
      // What the owner creates later (each migration) is the runtime role's to use as well.
      await client.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ${owner} IN SCHEMA ${schema} GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${app}`);
      await client.query(`ALTER DEFAULT PRIVILEGES FOR ROLE ${owner} IN SCHEMA ${schema} GRANT USAGE, SELECT, UPDATE ON SEQUENCES TO ${app}`);
      const result = await applyMigrations({
        databaseUrl: adminUrl,
        schema: principal.schema,
        migrations: readMigrations(migrationsDirOf(principal.service)),
        role: principal.owner,
      });
      for (const name of result.applied) changes.push(`PostgreSQL: schema ${principal.schema}: migration ${name} applied`);
      await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA ${schema} TO ${app}`);
      await client.query(`GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA ${schema} TO ${app}`);
      changes.push(...(await grantViewReaders(client, principal)));
    }
  } finally {
    await client.end();
  }
  return changes;
}

/**
 * The schema's view readers (KEDA, plan.ts): each logs in and may SELECT its views, nothing else.
 * A view reads its tables with its owner's rights, so the reader needs none on them; the default
 * privileges above are the runtime role's alone.
 */
async function grantViewReaders(client: Client, principal: DatabasePrincipal): Promise<string[]> {
  const changes: string[] = [];
  const schema = client.escapeIdentifier(principal.schema);
  for (const reader of principal.readers) {
    const role = client.escapeIdentifier(reader.role);
    const { rowCount } = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [reader.role]);
    if (!rowCount) {
      await client.query(`CREATE ROLE ${role} NOLOGIN`);
      changes.push(`PostgreSQL: role ${reader.role} created, reading ${reader.views.join(', ')} of schema ${principal.schema}`);
    }
    await client.query(`ALTER ROLE ${role} LOGIN PASSWORD ${client.escapeLiteral(reader.password)}`);
    await client.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
    for (const view of reader.views) await client.query(`GRANT SELECT ON ${schema}.${client.escapeIdentifier(view)} TO ${role}`);
  }
  return changes;
}

/**
 * PostgreSQL 14 and earlier let every role create in schema `public`, and a cluster upgraded from
 * one keeps that: a runtime role would have the CREATE it must not have (docs/operations.md). Taken
 * from PUBLIC as PostgreSQL 15 does by default; a provisioning role that cannot (it does not own
 * `public`: PostgreSQL only warns) stops here with what to run.
 */
async function revokeCreateOnPublic(client: Client): Promise<string[]> {
  const everyoneCreates = async () =>
    (
      await client.query<{ granted: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_namespace n, aclexplode(n.nspacl) a
                         WHERE n.nspname = 'public' AND a.grantee = 0 AND a.privilege_type = 'CREATE') AS granted`,
      )
    ).rows[0]!.granted;
  if (!(await everyoneCreates())) return [];
  await client.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC');
  if (await everyoneCreates()) {
    throw new Error(
      'PostgreSQL: every role may create in schema public and this role cannot revoke it: run REVOKE CREATE ON SCHEMA public FROM PUBLIC as its owner',
    );
  }
  return ['PostgreSQL: CREATE on schema public revoked from PUBLIC'];
}

/**
 * Gives the owner role what another role created in the schema (a development schema from before
 * provisioning, migrated by the superuser), so that the runtime role's rights and the owner's
 * migrations apply to it as to the rest.
 */
async function handOver(client: Client, principal: DatabasePrincipal): Promise<string[]> {
  const owner = client.escapeIdentifier(principal.owner);
  const { rows } = await client.query<{ statement: string }>(
    `SELECT format('ALTER TABLE %I.%I OWNER TO ', n.nspname, c.relname) AS statement
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm') AND pg_get_userbyid(c.relowner) <> $2
     UNION ALL
     SELECT format('ALTER FUNCTION %I.%I(%s) OWNER TO ', n.nspname, p.proname, pg_get_function_identity_arguments(p.oid))
       FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = $1 AND pg_get_userbyid(p.proowner) <> $2`,
    [principal.schema, principal.owner],
  );
  // The schema too: its owner must be able to create what the next migrations add.
  const { rowCount: foreignSchema } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1 AND pg_get_userbyid(nspowner) <> $2', [
    principal.schema,
    principal.owner,
  ]);
  if (foreignSchema) await client.query(`ALTER SCHEMA ${client.escapeIdentifier(principal.schema)} OWNER TO ${owner}`);
  for (const { statement } of rows) await client.query(statement + owner);
  const handedOver = rows.length + (foreignSchema ?? 0);
  return handedOver > 0 ? [`PostgreSQL: ${handedOver} objects of schema ${principal.schema} handed over to ${principal.owner}`] : [];
}

/** Removes the schemas and roles of `principals` (an isolated stack's, when it stops). */
export async function removeDatabasePrincipals(adminUrl: string, principals: readonly DatabasePrincipal[]): Promise<void> {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    for (const principal of principals) {
      await client.query(`DROP SCHEMA IF EXISTS ${client.escapeIdentifier(principal.schema)} CASCADE`);
      for (const role of [...principal.readers.map((reader) => reader.role), principal.app, principal.owner]) {
        const { rowCount } = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role]);
        if (!rowCount) continue;
        // Its default privileges and grants go first; a role that still holds any cannot be dropped.
        await client.query(`DROP OWNED BY ${client.escapeIdentifier(role)}`);
        await client.query(`DROP ROLE ${client.escapeIdentifier(role)}`);
      }
    }
  } finally {
    await client.end();
  }
}
