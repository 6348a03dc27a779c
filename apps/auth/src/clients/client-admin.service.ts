import { permissionsOfRole, scopeRefusal } from '@bedrequest/tokens';
import type { PartyRepository } from '../parties/party.repository';
import type { Party } from '../parties/party';
import { jwksRefusal, type SystemClient } from './client';
import type { ClientRepository } from './client.repository';
import { jwksUrlRefusal, type JwksUrlPolicy } from './jwks-url';

/** A client registration the command line refuses (exit code 1, one line). */
export class ClientRegistrationError extends Error {
  override name = 'ClientRegistrationError';
}

export interface ClientRegistration {
  readonly partyId: string;
  readonly name: string;
  /** Exactly one of the two: the JWKS itself (parsed JSON) or the URL it is fetched from. */
  readonly jwks?: unknown;
  readonly jwksUrl?: string;
  /** Space-separated scopes; undefined: every catalogue scope of the party's role. */
  readonly scope?: string;
}

/**
 * `npm run admin -- client ...` (docs/parties.md, "System clients and scopes"): registers a party's
 * system clients with their public keys and the scopes they may be granted, lists and disables them.
 */
export class ClientAdministration {
  constructor(private readonly deps: { clients: ClientRepository; parties: PartyRepository; jwksUrls: JwksUrlPolicy; now: () => number }) {}

  async create(registration: ClientRegistration): Promise<{ client: SystemClient; party: Party }> {
    const party = await this.deps.parties.findById(registration.partyId);
    if (!party) throw new ClientRegistrationError(`no party with id ${registration.partyId}`);
    if (party.disabledAt) throw new ClientRegistrationError(`party ${party.id} is disabled`);
    const name = registration.name.trim();
    if (name.length < 1 || name.length > 200) throw new ClientRegistrationError('--name must be 1 to 200 characters');
    const scopes = scopesOf(registration.scope, party);
    const client = await this.deps.clients.create({ partyId: party.id, name, keys: await this.keysOf(registration), scopes });
    return { client, party };
  }

  list(partyId?: string): Promise<SystemClient[]> {
    return this.deps.clients.list(partyId);
  }

  /** Disables the client: no more tokens, and those it holds are revoked (GET /internal/revocations). */
  disable(id: string): Promise<'disabled' | 'already-disabled' | 'unknown'> {
    return this.deps.clients.disable(id, new Date(this.deps.now()));
  }

  private async keysOf(registration: ClientRegistration): Promise<SystemClient['keys']> {
    if (registration.jwksUrl !== undefined) {
      const refusal = await jwksUrlRefusal(registration.jwksUrl, this.deps.jwksUrls);
      if (refusal) throw new ClientRegistrationError(`--jwks-url refused: ${refusal}`);
      return { jwksUrl: registration.jwksUrl };
    }
    const refusal = jwksRefusal(registration.jwks);
    if (refusal) throw new ClientRegistrationError(`--jwks-file refused: ${refusal}`);
    return { jwks: registration.jwks as { keys: [] } };
  }
}

/** The registered scopes: each one the party's role may hold (scopeRefusal), duplicates dropped; null for none given. */
function scopesOf(scope: string | undefined, party: Party): string[] | null {
  if (scope === undefined) return null;
  const scopes = [...new Set(scope.split(/\s+/).filter(Boolean))];
  if (scopes.length === 0) throw new ClientRegistrationError('--scope names no scope (leave it out for every scope of the role)');
  const allowed = permissionsOfRole(party.role);
  for (const each of scopes) {
    const refusal = scopeRefusal(each, allowed);
    if (refusal) throw new ClientRegistrationError(`--scope refused for a ${party.role} party: ${refusal}`);
  }
  return scopes;
}
