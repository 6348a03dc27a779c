import { checkRoleBinding, InvalidUserError, parseEmail, parseIkNumbers, parseName, parsePhone, parseRole, type ClinicDirectory } from './party-input';
import type { Party } from './party';
import { isUuid, type PartyChanges, type PartyRepository } from './party.repository';

export interface PartyInput {
  readonly role: string;
  readonly name: string;
  /** As given on the command line: `260000001` or `260000001,260000002`. */
  readonly ik: string;
  readonly fhirBase?: string;
  readonly contactEmail?: string;
  readonly contactName?: string;
  readonly contactPhone?: string;
}

/** A blank contact field removes it. */
export interface PartyUpdate {
  readonly id: string;
  readonly name?: string;
  readonly ik?: string;
  readonly fhirBase?: string;
  readonly contactEmail?: string;
  readonly contactName?: string;
  readonly contactPhone?: string;
}

/** Creates, changes, lists and disables parties (the `party` commands of `npm run admin`; docs/parties.md). */
export class PartyAdministration {
  constructor(private readonly deps: { parties: PartyRepository; clinics: ClinicDirectory; now: () => number }) {}

  async create(input: PartyInput): Promise<Party> {
    const role = parseRole(input.role);
    const name = parseName(input.name, '--name');
    const ikNumbers = parseIkNumbers(input.ik);
    const fhirBase = await checkRoleBinding(this.bindingDeps(), { role, ikNumbers, fhirBase: input.fhirBase });
    const contactEmail = input.contactEmail === undefined ? undefined : parseEmail(input.contactEmail, '--contact-email');
    const contactName = input.contactName === undefined ? undefined : parseName(input.contactName, '--contact-name');
    const contactPhone = input.contactPhone === undefined ? undefined : parsePhone(input.contactPhone, '--contact-phone');
    return this.deps.parties.create({ role, name, ikNumbers, fhirBase, contactEmail, contactName, contactPhone });
  }

  async update(input: PartyUpdate): Promise<Party> {
    const party = await this.find(input.id);
    const changes: PartyChanges = {
      name: input.name === undefined ? undefined : parseName(input.name, '--name'),
      contactEmail: contactChange(input.contactEmail, (value) => parseEmail(value, '--contact-email')),
      contactName: contactChange(input.contactName, (value) => parseName(value, '--contact-name')),
      contactPhone: contactChange(input.contactPhone, (value) => parsePhone(value, '--contact-phone')),
    };
    if (input.ik === undefined && input.fhirBase === undefined) return this.deps.parties.update(party.id, changes);
    const ikNumbers = input.ik === undefined ? party.ikNumbers : parseIkNumbers(input.ik);
    const fhirBase = await checkRoleBinding(this.bindingDeps(), {
      role: party.role,
      ikNumbers,
      // A clinic has no base to keep; a referrer keeps its own unless given another.
      fhirBase: input.fhirBase ?? party.fhirBase,
      ownPartyId: party.id,
    });
    return this.deps.parties.update(party.id, { ...changes, ikNumbers, fhirBase });
  }

  async list(): Promise<{ party: Party; users: number }[]> {
    return this.deps.parties.list();
  }

  async disable(id: string): Promise<'disabled' | 'already-disabled'> {
    const result = await this.deps.parties.disable(id, new Date(this.deps.now()));
    if (result === 'unknown') throw new InvalidUserError(`no party with id "${id}"`);
    return result;
  }

  /** The party of `--party`: it must exist; throws InvalidUserError. */
  async find(id: string): Promise<Party> {
    const party = isUuid(id) ? await this.deps.parties.findById(id) : undefined;
    if (!party) throw new InvalidUserError(`no party with id "${id}" (see npm run admin -- party list)`);
    return party;
  }

  bindingDeps() {
    return { clinics: this.deps.clinics, parties: async () => (await this.deps.parties.list()).map(({ party }) => party) };
  }
}

/** Not given: unchanged (undefined); blank: removed (null); else checked by `parse`. */
function contactChange(value: string | undefined, parse: (value: string) => string): string | null | undefined {
  if (value === undefined) return undefined;
  return value.trim() === '' ? null : parse(value);
}
