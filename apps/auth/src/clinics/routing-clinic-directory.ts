import type { ClinicDirectory } from '../users/user-admin.service';

/** Routing's internal API did not answer: the stack is not running (or routing is down). */
export class RoutingUnreachableError extends Error {
  override name = 'RoutingUnreachableError';
}

/**
 * Asks routing's internal API whether an IK number is a participating clinic: routing owns the
 * clinic registry, and services never read each other's tables.
 */
export class RoutingClinicDirectory implements ClinicDirectory {
  constructor(private readonly routingUrl: string) {}

  async isParticipatingClinic(ik: string): Promise<boolean> {
    let response: Response;
    try {
      response = await fetch(new URL(`/internal/clinics/${encodeURIComponent(ik)}`, this.routingUrl), {
        signal: AbortSignal.timeout(5_000),
      });
    } catch {
      throw new RoutingUnreachableError(
        `cannot reach the routing service at ${this.routingUrl} to check clinic IK ${ik}: start the stack first (npm start)`,
      );
    }
    if (response.status === 404) return false;
    if (!response.ok) throw new Error(`the routing service answered HTTP ${response.status} for clinic IK ${ik}`);
    return true;
  }
}
