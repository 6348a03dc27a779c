import { fhirBasesOverlap } from '@bedrequest/tokens';
import type { PasswordHasher } from '../passwords/password-hasher';
import { ROLES, type Role, type UserAccount } from './user';
import type { NewUser, UserRepository } from './user.repository';

/** Input the admin command line refuses, with a one-line reason. */
export class InvalidUserError extends Error {
  override name = 'InvalidUserError';
}

/** Is this IK number a participating clinic? Routing owns the registry; auth asks its internal API. */
export interface ClinicDirectory {
  isParticipatingClinic(ik: string): Promise<boolean>;
}

export interface UserInput {
  readonly role: string;
  readonly username: string;
  readonly password: string;
  /** As given on the command line: `260000001` or `260000001,260000002`. */
  readonly ik: string;
  readonly fhirBase?: string;
}

/** docs/decisions.md, "Parties and credentials": an IK number is 9 digits. */
const IK_PATTERN = /^[0-9]{9}$/;
const USERNAME_PATTERN = /^[a-z0-9][a-z0-9._@+-]{0,127}$/;
/**
 * Passwords are issued out of band by an administrator (docs/decisions.md): at least 12 characters
 * whatever NODE_ENV says, so that no stack, a demo's or a test's included, holds a weaker one than
 * production would (docs/parties.md). The upper bound keeps Argon2 inputs small.
 */
const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_LENGTH = 256;

/** Usernames are case-insensitive: stored and looked up in lower case. */
export function normalizeUsername(username: string): string {
  return username.trim().toLowerCase();
}

/** Creates, lists and disables the users that log in (the `user` commands of `npm run admin`). */
export class UserAdministration {
  constructor(private readonly deps: { users: UserRepository; passwords: PasswordHasher; clinics: ClinicDirectory; now: () => number }) {}

  async create(input: UserInput): Promise<UserAccount> {
    return this.deps.users.create(await this.prepare(input));
  }

  /** Like create, but an existing user of that name gets the new password and attributes and is enabled. */
  async upsert(input: UserInput): Promise<{ user: UserAccount; created: boolean }> {
    return this.deps.users.upsert(await this.prepare(input));
  }

  async disable(username: string): Promise<'disabled' | 'already-disabled'> {
    const result = await this.deps.users.disable(normalizeUsername(username), new Date(this.deps.now()));
    if (result === 'unknown') throw new InvalidUserError(`no user named "${normalizeUsername(username)}"`);
    return result;
  }

  list(): Promise<UserAccount[]> {
    return this.deps.users.list();
  }

  private async prepare(input: UserInput): Promise<NewUser> {
    const role = parseRole(input.role);
    const username = normalizeUsername(input.username);
    if (!USERNAME_PATTERN.test(username)) {
      throw new InvalidUserError(`malformed username "${input.username}": 1-128 letters, digits, ".", "_", "@", "+" or "-"`);
    }
    if (input.password.length < MIN_PASSWORD_LENGTH || input.password.length > MAX_PASSWORD_LENGTH) {
      throw new InvalidUserError(`the password must have at least ${MIN_PASSWORD_LENGTH} characters (and at most ${MAX_PASSWORD_LENGTH})`);
    }
    const ikNumbers = parseIkNumbers(input.ik);
    let fhirBase: string | undefined;
    if (role === 'referrer') {
      if (input.fhirBase === undefined) throw new InvalidUserError("missing option --fhir-base (the referrer's registered FHIR base URL)");
      fhirBase = parseFhirBase(input.fhirBase);
      await this.assertOwnFhirBase(username, fhirBase);
    } else {
      if (input.fhirBase !== undefined) throw new InvalidUserError('--fhir-base applies to referrers only');
      if (ikNumbers.length !== 1) throw new InvalidUserError('a clinic user is bound to exactly one IK number');
      const [ik] = ikNumbers as [string];
      if (!(await this.deps.clinics.isParticipatingClinic(ik))) {
        throw new InvalidUserError(`unknown clinic IK ${ik}: register the clinic first (npm run admin -- clinic upsert --ik ${ik} ...)`);
      }
    }
    return { username, role, ikNumbers, fhirBase, passwordHash: await this.deps.passwords.hash(input.password) };
  }

  /**
   * A referrer's FHIR base may not lie inside or around another referrer's (by path segments), or
   * one of them would own the other's identifiers. The same base is allowed: another login of the
   * same referrer.
   */
  private async assertOwnFhirBase(username: string, fhirBase: string): Promise<void> {
    const other = (await this.deps.users.list()).find(
      (user) => user.role === 'referrer' && user.username !== username && fhirBasesOverlap(user.fhirBase, fhirBase),
    );
    if (other?.role === 'referrer') {
      throw new InvalidUserError(
        `the FHIR base ${fhirBase} overlaps the FHIR base ${other.fhirBase} of referrer ${other.username}: each referrer needs a base of its own`,
      );
    }
  }
}

function parseRole(value: string): Role {
  if (!(ROLES as readonly string[]).includes(value)) throw new InvalidUserError(`unknown role "${value}" (expected "referrer" or "clinic")`);
  return value as Role;
}

function parseIkNumbers(value: string): string[] {
  const ikNumbers = [
    ...new Set(
      value
        .split(',')
        .map((ik) => ik.trim())
        .filter((ik) => ik !== ''),
    ),
  ];
  if (ikNumbers.length === 0) throw new InvalidUserError('at least one IK number is required');
  for (const ik of ikNumbers) {
    if (!IK_PATTERN.test(ik)) throw new InvalidUserError(`malformed IK number "${ik}": an IK number is 9 digits`);
  }
  return ikNumbers;
}

/**
 * The referrer's FHIR base URL: every ServiceRequest.identifier it sends must begin with it
 * (spec, Authentication 10). Stored as given, since it is compared as a prefix.
 */
function parseFhirBase(value: string): string {
  const fhirBase = value.trim();
  let url: URL;
  try {
    url = new URL(fhirBase);
  } catch {
    throw new InvalidUserError(`bad URL "${value}" for --fhir-base: an absolute http(s) URL is required`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash || url.username || url.password) {
    throw new InvalidUserError(`bad URL "${value}" for --fhir-base: an absolute http(s) URL without query, fragment or credentials is required`);
  }
  return fhirBase;
}
