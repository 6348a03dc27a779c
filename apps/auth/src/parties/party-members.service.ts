import type { Logger } from 'pino';
import type { NewPartyMember, NotificationSettings, PartyMemberView, PartyView } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';
import type { Principal } from '@bedrequest/tokens';
import type { Member } from '../users/user';
import type { UserAdministration } from '../users/user-admin.service';
import type { UserRepository } from '../users/user.repository';
import type { Party } from './party';
import type { PartyMember, PartyMemberRepository } from './party-members.repository';
import { isUuid } from './party.repository';

/** The person of the token is disabled, or their party is, or they are gone: their access is revoked (401). */
export class RevokedPersonError extends HttpError {
  override name = 'RevokedPersonError';
  constructor() {
    super('unauthorized', 'the person of this access token or their party is disabled; log in again');
  }
}

/** The person is not an administrator of their party, as the database says now (403). */
export class NotAdministratorError extends HttpError {
  override name = 'NotAdministratorError';
  constructor() {
    super('forbidden', 'only an administrator of the party manages its people');
  }
}

/** No such person in the caller's party: another party's people are unknown alike (404). */
export class UnknownPartyMemberError extends HttpError {
  override name = 'UnknownPartyMemberError';
  constructor() {
    super('not_found', 'no such user in your party');
  }
}

/** An administrator disabling themself would leave the party without them, perhaps without any (409). */
export class SelfDisableError extends HttpError {
  override name = 'SelfDisableError';
  constructor() {
    super('conflict', 'you cannot disable yourself: another administrator of your party, or the operator, can');
  }
}

/** A person turning e-mail on who has no address to send it to (409): their administrator sets one. */
export class NoEmailAddressError extends HttpError {
  override name = 'NoEmailAddressError';
  constructor() {
    super('conflict', 'email: you have no e-mail address; an administrator of your party sets it');
  }
}

/**
 * The party administrator's API (docs/parties.md, "Party administrators"): any person of a party
 * reads the party; its administrators list its people, add people and disable them. Who calls, and
 * whether they are an administrator, is read from the database at every call, never from the token,
 * so that a person disabled or no longer an administrator a moment ago is refused at once. Every
 * change is logged with the party, the acting person and the person changed, by user id only
 * (docs/data-protection.md, "Staff").
 */
export class PartyMembers {
  constructor(
    private readonly deps: {
      users: UserRepository;
      members: PartyMemberRepository;
      administration: UserAdministration;
      logger: Logger;
    },
  ) {}

  async party(principal: Principal): Promise<PartyView> {
    const { party } = await this.personOf(principal);
    return {
      id: party.id,
      role: party.role,
      name: party.name,
      ik: [...party.ikNumbers],
      ...(party.fhirBase === undefined ? {} : { fhirBase: party.fhirBase }),
      ...contactOf(party),
    };
  }

  async list(principal: Principal): Promise<PartyMemberView[]> {
    const administrator = await this.administratorOf(principal);
    return (await this.deps.members.list(administrator.partyId)).map(viewOf);
  }

  /** Adds a person to the administrator's party, with the checks of `user create --party`. */
  async create(principal: Principal, input: NewPartyMember): Promise<PartyMemberView> {
    const administrator = await this.administratorOf(principal);
    const created = await this.deps.administration.createInParty({
      partyId: administrator.partyId,
      username: input.username,
      password: input.password,
      displayName: input.displayName,
      email: input.email,
      administrator: input.administrator ?? false,
    });
    this.deps.logger.info(
      { partyId: administrator.partyId, userId: administrator.id, targetUserId: created.id, administrator: created.administrator },
      'party member created',
    );
    // A new person gets no e-mail until they ask for it themself.
    return viewOf({ ...created, emailNotifications: false });
  }

  /**
   * Disables a person of the administrator's party as `user disable` does (UserAdministration.disable),
   * so that whatever disabling does, this does too. Disabling a disabled person changes nothing and
   * answers the same.
   */
  async disable(principal: Principal, userId: string): Promise<PartyMemberView> {
    const administrator = await this.administratorOf(principal);
    const target = await this.deps.members.find(administrator.partyId, userId);
    if (!target) throw new UnknownPartyMemberError();
    if (target.id === administrator.id) throw new SelfDisableError();
    const outcome = await this.deps.administration.disable(target.username);
    this.deps.logger.info({ partyId: administrator.partyId, userId: administrator.id, targetUserId: target.id, outcome }, 'party member disabled');
    const disabled = await this.deps.members.find(administrator.partyId, target.id);
    if (!disabled) throw new Error(`user ${target.id} left party ${administrator.partyId} while being disabled`);
    return viewOf(disabled);
  }

  /** The caller's own choice of e-mail (any person of the party, for themself only). */
  async notifications(principal: Principal): Promise<NotificationSettings> {
    const person = await this.personOf(principal);
    const member = await this.deps.members.find(person.partyId, person.id);
    return settingsOf(member ?? { email: person.email, emailNotifications: false });
  }

  /** Sets the caller's own choice; turning it on needs an address. */
  async setNotifications(principal: Principal, email: boolean): Promise<NotificationSettings> {
    const person = await this.personOf(principal);
    if (email && person.email === null) throw new NoEmailAddressError();
    const changed = await this.deps.members.setEmailNotifications(person.partyId, person.id, email);
    if (!changed) throw new RevokedPersonError();
    this.deps.logger.info({ partyId: person.partyId, userId: person.id, emailNotifications: email }, 'party member notifications set');
    return settingsOf(changed);
  }

  private async administratorOf(principal: Principal): Promise<Member> {
    const person = await this.personOf(principal);
    if (!person.administrator) throw new NotAdministratorError();
    return person;
  }

  /** The token's person as stored now: of the token's party, neither of them disabled. */
  private async personOf(principal: Principal): Promise<Member> {
    const person = isUuid(principal.userId) ? await this.deps.users.findById(principal.userId) : undefined;
    if (!person || person.partyId !== principal.partyId || person.disabledAt !== null || person.party.disabledAt !== null) {
      throw new RevokedPersonError();
    }
    return person;
  }
}

/** The party's contact fields that are set. */
export function contactOf(party: Pick<Party, 'contactEmail' | 'contactName' | 'contactPhone'>) {
  return {
    ...(party.contactName === null ? {} : { contactName: party.contactName }),
    ...(party.contactPhone === null ? {} : { contactPhone: party.contactPhone }),
    ...(party.contactEmail === null ? {} : { contactEmail: party.contactEmail }),
  };
}

function viewOf(member: PartyMember): PartyMemberView {
  return {
    id: member.id,
    username: member.username,
    displayName: member.displayName,
    ...(member.email === null ? {} : { email: member.email }),
    administrator: member.administrator,
    emailNotifications: member.emailNotifications,
    disabled: member.disabledAt !== null,
    createdAt: member.createdAt.toISOString(),
  };
}

function settingsOf(member: Pick<PartyMember, 'email' | 'emailNotifications'>): NotificationSettings {
  return { email: member.emailNotifications, ...(member.email === null ? {} : { address: member.email }) };
}
