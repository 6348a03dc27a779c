import { z } from 'zod';

/**
 * The party and its people, as the party administrator's API shows them (docs/api.md, "Party and
 * people"): `/api/v1/party` of the gateway, answered by auth's `/internal/party`. Auth owns both
 * and applies the rules again; the request body's checks are those of
 * `npm run admin -- user create --party` (docs/parties.md, "The admin command line").
 */

/** `GET /api/v1/party`: the caller's own party. */
export const PartyView = z.object({
  id: z.uuid().describe("The party's id: the `sub` of its people's access tokens"),
  role: z.enum(['referrer', 'clinic']),
  name: z.string(),
  ik: z.array(z.string()).describe('The IK numbers the party acts for: one or more for a referrer, exactly one for a clinic'),
  fhirBase: z.string().optional().describe("A referrer's registered FHIR base URL"),
  contactEmail: z.string().optional(),
  contactName: z.string().optional().describe("Whom a clinic calls about the party's requests: a person or desk"),
  contactPhone: z.string().optional().describe('Their telephone number, as written'),
});
export type PartyView = z.infer<typeof PartyView>;

/**
 * The referrer of a request as its clinics see it (docs/api.md, "Clinic API":
 * `GET /api/v1/clinic/tasks/{taskId}/referrer`): the party's name and whom to call about the
 * request, as the operator registered them (docs/parties.md, "Contact"); auth answers it from the
 * party (`GET /internal/parties/{id}/contact`, service tokens only).
 */
export const ReferrerContact = z.object({
  name: z.string().describe("The referrer party's name, e.g. the hospital's social service"),
  contactName: z.string().optional().describe('A person or desk to call'),
  contactPhone: z.string().optional().describe('Their telephone number, as written'),
  contactEmail: z.string().optional(),
});
export type ReferrerContact = z.infer<typeof ReferrerContact>;

/** A person of the party; never their password or its hash. */
export const PartyMemberView = z.object({
  id: z.uuid().describe('The user id: `act.sub` of their access tokens, `agent.altId` in the audit trail'),
  username: z.string().describe('Lower case: usernames are case-insensitive'),
  displayName: z.string(),
  email: z.string().optional(),
  administrator: z.boolean().describe("Manages the party's people through this API"),
  emailNotifications: z.boolean().describe("Gets e-mail about the party's requests: set by the person themself, false until they do"),
  disabled: z.boolean().describe('Can no longer log in or refresh'),
  createdAt: z.iso.datetime().describe('When the user was created'),
});
export type PartyMemberView = z.infer<typeof PartyMemberView>;

/** `GET /api/v1/party/users`: every person of the party, disabled ones included, by username. */
export const PartyMemberList = z.object({ items: z.array(PartyMemberView) });
export type PartyMemberList = z.infer<typeof PartyMemberList>;

/**
 * Passwords are issued by an administrator and passed on out of band (docs/decisions.md, "Parties
 * and credentials"): 12 to 256 characters, as for `user create`.
 */
const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_LENGTH = 256;

/**
 * `POST /api/v1/party/users`: a person added to the caller's party. Strict, like every /api/v1 body.
 * The username is stored in lower case; a display name and an e-mail address are trimmed.
 */
export const NewPartyMember = z.strictObject({
  username: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/, 'must be 1-128 letters, digits, ".", "_", "@", "+" or "-", beginning with a letter or digit')
    .describe('Unique across all parties, case-insensitive'),
  password: z.string().min(MIN_PASSWORD_LENGTH).max(MAX_PASSWORD_LENGTH).describe('12 to 256 characters; stored only as an Argon2id hash'),
  displayName: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .regex(/^[^\p{Cc}\u2028\u2029]*$/u, 'must be one line without control characters')
    .optional()
    .describe('The name their actions carry (`act.name`, the audit trail); the username when absent'),
  email: z
    .string()
    .trim()
    .min(3)
    .max(254)
    .regex(/^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+$/u, 'must be an e-mail address')
    .optional(),
  administrator: z.boolean().optional().describe("Whether they manage the party's people too; false when absent"),
});
export type NewPartyMember = z.infer<typeof NewPartyMember>;

/**
 * `GET|PUT /api/v1/party/users/me/notifications`: whether the calling person gets e-mail about the
 * party's requests (docs/api.md, "Party and people"). Any person of the party sets their own, never
 * another's; turning it on needs an address, which their administrator sets.
 */
export const NotificationSettingsInput = z.strictObject({
  email: z.boolean().describe('true: e-mail to the address the person has; false: none'),
});
export type NotificationSettingsInput = z.infer<typeof NotificationSettingsInput>;

export const NotificationSettings = NotificationSettingsInput.extend({
  address: z.string().optional().describe("The address mail goes to: the person's own, as their administrator set it"),
});
export type NotificationSettings = z.infer<typeof NotificationSettings>;

/**
 * `GET /internal/mail-recipients?party={id}` or `?ik={ik}` of auth (service tokens only): the
 * addresses of a party's people who want e-mail, read by intake when it sends one (docs/operations.md, "E-mail").
 */
export const MailRecipients = z.object({ addresses: z.array(z.string()) });
export type MailRecipients = z.infer<typeof MailRecipients>;
