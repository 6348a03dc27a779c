import type { PartyAdministration } from '../parties/party-admin.service';
import { checkRoleBinding, InvalidUserError, parseEmail, parseIkNumbers, parseName, parseRole } from '../parties/party-input';
import type { PasswordHasher } from '../passwords/password-hasher';
import type { Member } from './user';
import { DuplicateUsernameError, RoleChangeError, type NewUser, type UserRepository } from './user.repository';

export { InvalidUserError, type ClinicDirectory } from '../parties/party-input';

/** `user create --role …`: a login with a party of its own, as release 1.0 made them. */
export interface UserInput {
  readonly role: string;
  readonly username: string;
  readonly password: string;
  /** As given on the command line: `260000001` or `260000001,260000002`. */
  readonly ik: string;
  readonly fhirBase?: string;
}

/** `user create --party …`: a person added to an existing party. */
export interface PartyUserInput {
  readonly partyId: string;
  readonly username: string;
  readonly password: string;
  readonly displayName?: string;
  readonly email?: string;
  readonly administrator: boolean;
}

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
  constructor(private readonly deps: { users: UserRepository; parties: PartyAdministration; passwords: PasswordHasher; now: () => number }) {}

  async create(input: UserInput): Promise<Member> {
    return this.deps.users.create(await this.prepare(input));
  }

  async createInParty(input: PartyUserInput): Promise<Member> {
    const party = await this.deps.parties.find(input.partyId);
    if (party.disabledAt) throw new InvalidUserError(`party ${party.id} is disabled: its users cannot log in`);
    const username = checkUsername(input.username);
    // A taken name is refused before the Argon2 work, so that retrying one costs nothing; the
    // unique index still decides between two creates at once.
    if (await this.deps.users.findByUsername(username)) throw new DuplicateUsernameError(username);
    return this.deps.users.createInParty({
      partyId: party.id,
      username,
      displayName: input.displayName === undefined ? username : parseName(input.displayName, '--display-name'),
      email: input.email === undefined ? undefined : parseEmail(input.email, '--email'),
      administrator: input.administrator,
      passwordHash: await this.hashOf(input.password),
    });
  }

  /** Like create, but an existing user of that name gets the new password, its party the new attributes, and it is enabled. */
  async upsert(input: UserInput): Promise<{ user: Member; created: boolean }> {
    const user = await this.prepare(input);
    try {
      return await this.deps.users.upsert(user);
    } catch (error) {
      if (error instanceof RoleChangeError) throw new InvalidUserError(error.message);
      throw error;
    }
  }

  async disable(username: string): Promise<'disabled' | 'already-disabled'> {
    const result = await this.deps.users.disable(normalizeUsername(username), new Date(this.deps.now()));
    if (result === 'unknown') throw new InvalidUserError(`no user named "${normalizeUsername(username)}"`);
    return result;
  }

  list(): Promise<Member[]> {
    return this.deps.users.list();
  }

  private async prepare(input: UserInput): Promise<NewUser> {
    const role = parseRole(input.role);
    const username = checkUsername(input.username);
    const passwordHash = await this.hashOf(input.password);
    const ikNumbers = parseIkNumbers(input.ik);
    // An existing user's own party may keep its base (upsert); any other party's overlapping base is refused.
    const ownPartyId = (await this.deps.users.findByUsername(username))?.partyId;
    const fhirBase = await checkRoleBinding(this.deps.parties.bindingDeps(), { role, ikNumbers, fhirBase: input.fhirBase, ownPartyId });
    return { username, role, ikNumbers, fhirBase, passwordHash };
  }

  private async hashOf(password: string): Promise<string> {
    if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
      throw new InvalidUserError(`the password must have at least ${MIN_PASSWORD_LENGTH} characters (and at most ${MAX_PASSWORD_LENGTH})`);
    }
    return this.deps.passwords.hash(password);
  }
}

function checkUsername(value: string): string {
  const username = normalizeUsername(value);
  if (!USERNAME_PATTERN.test(username)) {
    throw new InvalidUserError(`malformed username "${value}": 1-128 letters, digits, ".", "_", "@", "+" or "-"`);
  }
  return username;
}
