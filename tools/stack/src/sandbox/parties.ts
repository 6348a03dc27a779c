import type { Stack } from '../launcher';
import { sandboxPassword } from './clinic-agent';
import { clientKeyIn, type ClientKeyFiles } from './client-key';
import type { SandboxClinic } from './rules';

/**
 * The sandbox's hospital: the IK and FHIR base of docs/examples/admission-request.json, so that the
 * example is a request the sandbox takes as it stands (docs/sandbox.md, "The demo parties").
 */
export const SANDBOX_REFERRER = { username: 'sandbox-referrer', ik: '260000001', fhirBase: 'https://demo-hospital.example/fhir' } as const;
const CLIENT_NAME = 'Sandbox referrer client';

export interface SandboxReferrer {
  readonly username: string;
  readonly password: string;
  readonly partyId: string;
  /** Its SMART Backend Services client: the id is the assertions' `iss` and `sub`. */
  readonly client: ClientKeyFiles & { readonly id: string };
}

type Admin = Pick<Stack, 'admin'>;

/** A user as `user list` prints it. */
interface ListedUser {
  readonly role: string;
  readonly ik: string;
  readonly fhirBase?: string;
  readonly active: boolean;
  readonly partyId: string;
}

/** The users of `user list` by username ("clinic user u (id …) ik 510000001, active, party …, display name …"). */
async function listUsers(stack: Admin): Promise<Map<string, ListedUser>> {
  const users = new Map<string, ListedUser>();
  for (const line of (await stack.admin('user', 'list')).split('\n')) {
    const match = /^(\w+) user (\S+) \(id [^)]+\) ik (\S+?)(?: fhir-base (\S+))?, (.+?), party (\S+), display name /.exec(line);
    if (match) users.set(match[2]!, { role: match[1]!, ik: match[3]!, fhirBase: match[4], active: match[5] === 'active', partyId: match[6]! });
  }
  return users;
}

/**
 * Registers the clinics and their users as the rules file has them, through the admin command line:
 * only what is missing or differs (`clinic list`, `user list`), so that a second start changes
 * nothing. Clinics first: routing must know an IK before auth binds a user to it.
 */
export async function registerClinics(stack: Admin, clinics: readonly SandboxClinic[]): Promise<void> {
  const [registry, users] = await Promise.all([stack.admin('clinic', 'list'), listUsers(stack)]);
  // "510000001  Sandbox-Klinik Orthopädie  [2300, 0300]", and "  automatic answers" after it where they are on.
  const listed = new Map(
    registry.split('\n').flatMap((line) => {
      const match = /^(\d{9}) {2}(.*) {2}\[(.*)\]/.exec(line);
      return match ? [[match[1]!, `${match[2]}|${match[3]!.split(', ').sort().join(',')}`] as const] : [];
    }),
  );
  const toRegister = clinics.filter((clinic) => listed.get(clinic.ik) !== `${clinic.name}|${[...clinic.departments].sort().join(',')}`);
  await Promise.all(
    toRegister.map((clinic) => stack.admin('clinic', 'upsert', '--ik', clinic.ik, '--name', clinic.name, '--departments', clinic.departments.join(','))),
  );
  const toBind = clinics.filter((clinic) => {
    const user = users.get(clinic.username);
    return !user || !user.active || user.role !== 'clinic' || user.ik !== clinic.ik;
  });
  await Promise.all(
    toBind.map((clinic) =>
      stack.admin('user', 'upsert', '--role', 'clinic', '--username', clinic.username, '--password', sandboxPassword(clinic.username), '--ik', clinic.ik),
    ),
  );
}

/**
 * The sandbox's referrer and its SMART client, registered once: the user is upserted only when
 * missing or not as it should be, the client only when no active client of the party has the key
 * kept in `directory` (a new one after `--reset`, the same one on every other start).
 */
export async function registerReferrer(stack: Admin, directory: string): Promise<SandboxReferrer> {
  const { username, ik, fhirBase } = SANDBOX_REFERRER;
  const password = sandboxPassword(username);
  const [users, key] = await Promise.all([listUsers(stack), clientKeyIn(directory)]);
  let user = users.get(username);
  if (!user || !user.active || user.role !== 'referrer' || user.ik !== ik || user.fhirBase !== fhirBase) {
    await stack.admin('user', 'upsert', '--role', 'referrer', '--username', username, '--password', password, '--ik', ik, '--fhir-base', fhirBase);
    user = (await listUsers(stack)).get(username);
    if (!user) throw new Error(`the sandbox referrer ${username} is missing after user upsert`);
  }
  const partyId = user.partyId;
  const clients = await stack.admin('client', 'list', '--party', partyId);
  const kept = new RegExp(`^client (\\S+) "${CLIENT_NAME}" jwks kid ${key.kid}, .*, active, party `, 'm').exec(clients);
  const id =
    kept?.[1] ?? (await stack.admin('client', 'create', '--party', partyId, '--name', CLIENT_NAME, '--jwks-file', key.jwksFile)).split('\n')[0]!.trim();
  return { username, password, partyId, client: { ...key, id } };
}
