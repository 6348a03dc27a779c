import { ApiErrorBody, ClinicRecord } from '@bedrequest/contracts';
import { InternalClient, type TokenSource } from '@bedrequest/http';
import { signingKeysOf } from '../keys/signing-key.repository';
import type { AuthDatabase } from '../persistence/database';
import type { AuthCliConfig } from '../config';
import { ServiceTokenIssuer } from '../token/access-token.service';
import type { ClinicDirectory } from '../users/user-admin.service';

/** Routing's internal API did not answer: the stack is not running (or routing is down). */
export class RoutingUnreachableError extends Error {
  override name = 'RoutingUnreachableError';
}

/**
 * Asks routing's internal API whether an IK number is a participating clinic: routing owns the
 * clinic registry, and services never read each other's tables. Asked with a service token.
 */
export class RoutingClinicDirectory implements ClinicDirectory {
  private readonly routing: InternalClient;

  constructor(
    private readonly routingUrl: string,
    private readonly tokens: TokenSource,
  ) {
    this.routing = new InternalClient({
      service: 'routing',
      baseUrl: routingUrl,
      timeoutMs: 5_000,
      unavailableMessage: 'the routing service is unavailable',
      connections: 1,
    });
  }

  async isParticipatingClinic(ik: string): Promise<boolean> {
    try {
      const answer = await this.routing.json(
        { method: 'GET', path: `/internal/clinics/${encodeURIComponent(ik)}`, credential: this.tokens },
        { 200: ClinicRecord, 404: ApiErrorBody },
      );
      return answer.status === 200;
    } catch (error) {
      throw new RoutingUnreachableError(`cannot reach the routing service at ${this.routingUrl} to check clinic IK ${ik}: start the stack first (npm start)`, {
        cause: error,
      });
    }
  }
}

/**
 * The admin command line's service tokens, signed by itself with the auth service's key (the
 * configured one, or the development key kept in the auth schema): it is the auth service's own
 * tool, so it needs no client secret to ask auth for them.
 */
export function commandLineServiceTokens(config: AuthCliConfig, prisma: AuthDatabase): TokenSource {
  let issuer: Promise<ServiceTokenIssuer> | undefined;
  const load = async () => {
    const keys = await signingKeysOf(config, prisma);
    return new ServiceTokenIssuer({ keys, issuer: config.AUTH_ISSUER, serviceAudience: config.SERVICE_TOKEN_AUDIENCE, now: Date.now });
  };
  // The key is loaded when routing is first asked, not by every command.
  return { token: async () => (await (issuer ??= load())).issue('auth-admin'), refused: () => undefined };
}
