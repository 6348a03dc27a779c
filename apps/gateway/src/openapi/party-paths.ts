// The /api/v1/party paths: the caller's party, and its people for the party's administrators.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { NewPartyMember, NotificationSettings, NotificationSettingsInput, PartyMemberList, PartyMemberView, PartyView } from '@bedrequest/contracts';
import { guarded, json, jsonBodyRefusals, merged, refusals, UNDECODABLE_PATH, type Refusals, type Secured } from './responses';

/** `/api/v1/party` (either role), answered by auth through the gateway (docs/api.md, "Party and people"). */
export function registerPartyPaths(registry: OpenAPIRegistry, secured: Secured): void {
  const base: Refusals = merged(guarded('any'), {
    401: 'The person of the token or their party has been disabled (auth reads it at each call)',
    503: 'the authentication service is unavailable',
  });
  const administrators: Refusals = merged(base, { 403: 'The person is not an administrator of the party (as stored now, not as the token was issued)' });

  registry.registerPath({
    method: 'get',
    path: '/api/v1/party',
    operationId: 'readParty',
    summary: "The caller's party: id (the tokens' sub), role, name, IK numbers, FHIR base, contact e-mail",
    security: secured,
    responses: { 200: { description: 'The party', content: json(PartyView) }, ...refusals('v1', base) },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/party/users',
    operationId: 'listPartyMembers',
    summary: "The party's people, disabled ones included, by username (the party's administrators only)",
    security: secured,
    responses: { 200: { description: 'The people of the party', content: json(PartyMemberList) }, ...refusals('v1', administrators) },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/party/users',
    operationId: 'createPartyMember',
    summary: "Add a person to the party, who then logs in with this username and password (the party's administrators only)",
    security: secured,
    request: { body: { required: true, content: json(NewPartyMember) } },
    responses: {
      201: { description: 'The person added', content: json(PartyMemberView) },
      ...refusals(
        'v1',
        merged(administrators, jsonBodyRefusals('16 KiB'), {
          400: 'a field is missing, malformed or unknown (the message names it)',
          409: 'The username is taken (usernames are unique across all parties)',
        }),
      ),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/party/users/{id}/disable',
    operationId: 'disablePartyMember',
    summary: "Disable a person of the party: their logins and refresh tokens are refused from now on (the party's administrators only)",
    security: secured,
    request: { params: z.object({ id: z.string().describe('The user id of the person') }) },
    responses: {
      200: { description: 'The person, disabled (also when they were already)', content: json(PartyMemberView) },
      ...refusals(
        'v1',
        merged(administrators, UNDECODABLE_PATH, {
          404: 'No such person in the caller’s party (an unknown id and another party’s person are alike)',
          409: 'An administrator cannot disable themself',
        }),
      ),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/party/users/me/notifications',
    operationId: 'readOwnNotifications',
    summary: "Whether the caller gets e-mail about the party's requests, and at which address (any person, for themself)",
    security: secured,
    responses: { 200: { description: "The caller's choice", content: json(NotificationSettings) }, ...refusals('v1', base) },
  });
  registry.registerPath({
    method: 'put',
    path: '/api/v1/party/users/me/notifications',
    operationId: 'setOwnNotifications',
    summary: "Turn the caller's e-mail about the party's requests on or off (any person, for themself; off until they turn it on)",
    security: secured,
    request: { body: { required: true, content: json(NotificationSettingsInput) } },
    responses: {
      200: { description: "The caller's choice as stored", content: json(NotificationSettings) },
      ...refusals(
        'v1',
        merged(base, jsonBodyRefusals('1 KiB'), {
          400: 'the body is not `{"email": true|false}`',
          409: 'The person has no e-mail address: an administrator of the party sets it',
        }),
      ),
    },
  });
}
