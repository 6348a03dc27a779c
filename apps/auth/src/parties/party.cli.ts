import { CommandLine, command, option, type CommandContext } from '@bedrequest/cli';
import type { AuthAdministration } from '../cli';
import type { Party } from './party';

type Context = CommandContext<AuthAdministration>;

/**
 * `npm run admin -- party ...` (docs/parties.md, "The command line"): the parties (an acute
 * hospital, a referral portal, a rehabilitation clinic) whose people log in with `user create --party`.
 */
export const PARTY_CLI = new CommandLine<AuthAdministration>({
  program: 'npm run admin --',
  group: 'party',
  summary: 'Parties: referrers and clinics, each with its people (auth). Reads DATABASE_URL, AUTH_DB_SCHEMA and ROUTING_URL from the environment.',
  commands: {
    create: command({
      summary: 'creates a party and prints its id: a referrer with its IK numbers and --fhir-base, or a clinic with its one IK',
      options: {
        role: option.string('referrer|clinic'),
        name: option.string('<name>'),
        ik: option.string('<IK>[,<IK>...]'),
        'fhir-base': option.string('<url>').optional(),
        'contact-email': option.string('<e-mail>').optional(),
        'contact-name': option.string('<name>').optional(),
        'contact-phone': option.string('<telephone>').optional(),
      },
      async run(values, { services, out }: Context) {
        const { parties } = await services();
        const party = await parties.create({
          role: values.role,
          name: values.name,
          ik: values.ik,
          fhirBase: values['fhir-base'],
          contactEmail: values['contact-email'],
          contactName: values['contact-name'],
          contactPhone: values['contact-phone'],
        });
        out(party.id);
      },
    }),
    update: command({
      summary: "changes a party's name, IK numbers, FHIR base or contact (a blank contact option removes it)",
      options: {
        id: option.string('<party id>'),
        name: option.string('<name>').optional(),
        ik: option.string('<IK>[,<IK>...]').optional(),
        'fhir-base': option.string('<url>').optional(),
        'contact-email': option.string('<e-mail>').optional(),
        'contact-name': option.string('<name>').optional(),
        'contact-phone': option.string('<telephone>').optional(),
      },
      async run(values, { services, out }: Context) {
        const { parties } = await services();
        const party = await parties.update({
          id: values.id,
          name: values.name,
          ik: values.ik,
          fhirBase: values['fhir-base'],
          contactEmail: values['contact-email'],
          contactName: values['contact-name'],
          contactPhone: values['contact-phone'],
        });
        out(`updated ${describe(party)}`);
      },
    }),
    list: command({
      summary: 'lists the parties with the number of their users',
      options: {},
      async run(_, { services, out }: Context) {
        const { parties } = await services();
        for (const { party, users } of await parties.list()) out(`${describe(party)}, ${users} user${users === 1 ? '' : 's'}`);
      },
    }),
    disable: command({
      summary: 'disables a party: none of its users can log in or refresh',
      options: { id: option.string('<party id>') },
      async run({ id }, { services, out }: Context) {
        const { parties } = await services();
        out((await parties.disable(id)) === 'disabled' ? `disabled party ${id}` : `party ${id} was already disabled`);
      },
    }),
  },
});

/** One line per party. */
function describe(party: Party): string {
  const fhirBase = party.role === 'referrer' ? ` fhir-base ${party.fhirBase}` : '';
  const contact = [party.contactName && `"${party.contactName}"`, party.contactPhone, party.contactEmail].filter(Boolean);
  const email = contact.length > 0 ? ` contact ${contact.join(' ')}` : '';
  const status = party.disabledAt ? `disabled since ${party.disabledAt.toISOString()}` : 'active';
  return `${party.role} party ${party.id} "${party.name}" ik ${party.ikNumbers.join(',')}${fhirBase}${email}, ${status}`;
}
