import express, { Router } from 'express';
import type { Logger } from 'pino';
import { NewPartyMember, NotificationSettingsInput } from '@bedrequest/contracts';
import { HttpError, jsonErrorHandler, type DomainErrors } from '@bedrequest/http';
import { ANY_ROLE, principalOf, requireToken, type TokenVerifier } from '@bedrequest/tokens';
import type { PasswordHasher } from '../passwords/password-hasher';
import type { AuthDatabase } from '../persistence/database';
import { UserAdministration } from '../users/user-admin.service';
import { DuplicateUsernameError, UserRepository } from '../users/user.repository';
import { PartyAdministration } from './party-admin.service';
import { InvalidUserError, type ClinicDirectory } from './party-input';
import { PartyMemberRepository } from './party-members.repository';
import { PartyMembers } from './party-members.service';
import { PartyRepository } from './party.repository';

const memberErrors: DomainErrors = (error) => {
  if (error instanceof InvalidUserError) return new HttpError('invalid_request', error.message);
  // The message of the error quotes the username; the API's name the field only (docs/api.md, "Errors").
  if (error instanceof DuplicateUsernameError) return new HttpError('conflict', 'username: is taken (usernames are unique across all parties)');
  return undefined;
};

/**
 * Auth's internal API behind the gateway's `/api/v1/party` (docs/api.md, "Party and people"),
 * called with the person's access token, forwarded by the gateway and verified here with auth's
 * own keys; service tokens do not pass. Mounted at `/internal/party`.
 *
 * - `GET /`: 200 the caller's party.
 * - `GET /users`: 200 `{items}`, the party's people (administrators only).
 * - `POST /users` `{username, password, displayName?, email?, administrator?}`: 201 the person; 400, 409 (a taken username).
 * - `POST /users/:id/disable`: 200 the person; 404 for anyone not of the caller's party, 409 for themself.
 * - `GET /users/me/notifications`: 200 `{email, address?}`, the caller's own choice of e-mail (any person).
 * - `PUT /users/me/notifications` `{email}`: 200 as GET; 409 turning it on without an address.
 *
 * 401 for a token whose person or party is disabled, 403 for a person who is not an administrator.
 */
export function partyMembersRouter(options: { members: PartyMembers; verifier: TokenVerifier; logger: Logger }): Router {
  const { members } = options;
  const router = Router();
  router.use(requireToken({ verifier: options.verifier, roles: ANY_ROLE }));
  router.get('/', async (_req, res) => {
    res.json(await members.party(principalOf(res)));
  });
  router.get('/users', async (_req, res) => {
    res.json({ items: await members.list(principalOf(res)) });
  });
  router.post('/users', express.json({ limit: '16kb' }), async (req, res) => {
    const input = HttpError.parseInput(NewPartyMember, req.body);
    res.status(201).json(await members.create(principalOf(res), input));
  });
  router.get('/users/me/notifications', async (_req, res) => {
    res.json(await members.notifications(principalOf(res)));
  });
  router.put('/users/me/notifications', express.json({ limit: '1kb' }), async (req, res) => {
    const input = HttpError.parseInput(NotificationSettingsInput, req.body);
    res.json(await members.setNotifications(principalOf(res), input.email));
  });
  router.post('/users/:id/disable', async (req, res) => {
    res.json(await members.disable(principalOf(res), String(req.params.id)));
  });
  router.use(jsonErrorHandler(options.logger, { domainErrors: memberErrors }));
  return router;
}

/**
 * The party administrator's API of a running auth service: the people in its database, the parties'
 * access tokens checked by `verifier` (auth's own keys: ownKeysVerifier, no service audience), and
 * the password hasher the service's logins use.
 */
export function partyMembersApi(deps: { prisma: AuthDatabase; verifier: TokenVerifier; passwords: PasswordHasher; now: () => number; logger: Logger }): Router {
  const { prisma, now } = deps;
  const parties = new PartyAdministration({ parties: new PartyRepository(prisma), clinics: NO_CLINIC_REGISTRATION, now });
  const users = new UserRepository(prisma);
  const administration = new UserAdministration({ users, parties, passwords: deps.passwords, now });
  return partyMembersRouter({
    members: new PartyMembers({ users, members: new PartyMemberRepository(prisma), administration, logger: deps.logger }),
    verifier: deps.verifier,
    logger: deps.logger,
  });
}

/** A person joins an existing party here: no IK number is bound, so routing's registry is never asked. */
const NO_CLINIC_REGISTRATION: ClinicDirectory = {
  isParticipatingClinic: () => Promise.reject(new Error('the party administrator API binds no IK numbers')),
};
