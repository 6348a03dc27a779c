import { ApiErrorBody, NotificationSettings, PartyMemberList, PartyMemberView, PartyView, type NewPartyMember } from '@bedrequest/contracts';
import { InternalClient } from '@bedrequest/http';

/** The person's forwarded access token (auth verifies it and reads who they are) and the correlation id. */
export interface PartyCall {
  readonly token: string;
  readonly correlationId: string;
}

/**
 * Auth's internal party API (`/internal/party`): the caller's party and its people, which auth owns.
 * Each call lists the answers its route may give; anything else is UpstreamUnavailableError (503).
 */
export class PartyClient {
  private readonly client: InternalClient;

  constructor(authUrl: string, timeoutMs = 10_000) {
    this.client = new InternalClient({
      service: 'auth',
      baseUrl: authUrl,
      timeoutMs,
      unavailableMessage: "the party's people are temporarily unavailable; please retry",
      connections: 8,
    });
  }

  party(call: PartyCall) {
    return this.client.json({ method: 'GET', path: '/internal/party', ...sent(call) }, { 200: PartyView, 401: ApiErrorBody });
  }

  members(call: PartyCall) {
    return this.client.json({ method: 'GET', path: '/internal/party/users', ...sent(call) }, { 200: PartyMemberList, 401: ApiErrorBody, 403: ApiErrorBody });
  }

  add(member: NewPartyMember, call: PartyCall) {
    return this.client.json(
      { method: 'POST', path: '/internal/party/users', json: member, ...sent(call) },
      { 201: PartyMemberView, 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 409: ApiErrorBody },
    );
  }

  disable(userId: string, call: PartyCall) {
    return this.client.json(
      { method: 'POST', path: `/internal/party/users/${encodeURIComponent(userId)}/disable`, ...sent(call) },
      { 200: PartyMemberView, 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody, 409: ApiErrorBody },
    );
  }

  /** The caller's own choice of e-mail: read (`email` undefined) or set. */
  notifications(call: PartyCall, email?: boolean) {
    return this.client.json(
      {
        method: email === undefined ? 'GET' : 'PUT',
        path: '/internal/party/users/me/notifications',
        ...(email === undefined ? {} : { json: { email } }),
        ...sent(call),
      },
      { 200: NotificationSettings, 400: ApiErrorBody, 401: ApiErrorBody, 409: ApiErrorBody },
    );
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

function sent(call: PartyCall) {
  return { credential: call.token, correlationId: call.correlationId };
}
