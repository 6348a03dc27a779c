import type { Role } from './roles';

/**
 * The scopes a system client (SMART Backend Services, docs/parties.md, "System clients and scopes")
 * may ask for: SMART v2 system scopes on the FHIR surface and a named scope per area of /api/v1.
 * Each maps onto the roles whose parties may hold it. Password-login tokens carry no scope and keep
 * every right of their role; a client's token carries the scopes it was granted and nothing more.
 */
export const SCOPE_CATALOGUE = {
  'system/Bundle.c': { roles: ['referrer'], grants: 'POST /api/v2/fhir/Bundle: send a request and its versions' },
  'system/ServiceRequest.rs': { roles: ['referrer'], grants: 'GET /api/v2/fhir/ServiceRequest: read back a request sent' },
  'system/ServiceRequest.d': { roles: ['referrer'], grants: "DELETE /api/v2/fhir/ServiceRequest: erase a request's patient data" },
  'system/Task.rs': { roles: ['referrer', 'clinic'], grants: 'GET /api/v2/fhir/Task and Task/{id}' },
  'system/AuditEvent.rs': { roles: ['referrer', 'clinic'], grants: 'GET /api/v2/fhir/AuditEvent' },
  'api:kliniken': { roles: ['referrer', 'clinic'], grants: '/api/v1/kliniken: the clinics, their free beds and answer statistics' },
  'api:party': { roles: ['referrer', 'clinic'], grants: "/api/v1/party: the party's own people and settings" },
  'api:subscriptions': { roles: ['referrer'], grants: '/api/v1/subscriptions: webhooks' },
  'api:referrer': { roles: ['referrer'], grants: "/api/v1/referrer: the hospital's workspace and the record for the payer" },
  'api:clinic': { roles: ['clinic'], grants: "/api/v1/clinic: the clinic's Tasks, answers, capacity and statistics" },
} as const satisfies Record<string, { roles: readonly Role[]; grants: string }>;

export type CatalogueScope = keyof typeof SCOPE_CATALOGUE;

/** SMART v2's permissions, in the order a scope must write them (create, read, update, delete, search). */
const PERMISSIONS = 'cruds';

/**
 * One permission a route needs: a FHIR resource type and a SMART v2 letter (`Task.r`), or a named
 * scope (`api:party`).
 */
export type Permission = `${string}.${'c' | 'r' | 'u' | 'd' | 's'}` | Extract<CatalogueScope, `api:${string}`>;

const SYSTEM_SCOPE = /^system\/([A-Z][A-Za-z]+)\.([cruds]+)$/;

/**
 * The permissions a scope string grants (`system/Task.rs` → `Task.r`, `Task.s`; `api:party` →
 * `api:party`), or undefined when it is not written as SMART v2 (letters in `cruds` order) or as a
 * named scope. Whether a role may hold them is `scopeRefusal`'s question.
 */
export function permissionsOf(scope: string): Permission[] | undefined {
  if (scope.startsWith('api:')) return scope in SCOPE_CATALOGUE ? [scope as Permission] : undefined;
  const match = SYSTEM_SCOPE.exec(scope);
  if (!match) return undefined;
  const [, type, letters = ''] = match;
  if (!inCrudsOrder(letters)) return undefined;
  return [...letters].map((letter) => `${type}.${letter}` as Permission);
}

function inCrudsOrder(letters: string): boolean {
  let last = -1;
  for (const letter of letters) {
    const index = PERMISSIONS.indexOf(letter);
    if (index <= last) return false;
    last = index;
  }
  return true;
}

/** Every permission the catalogue lets `role` hold, each catalogue scope written out. */
export function permissionsOfRole(role: Role): Set<Permission> {
  const held = new Set<Permission>();
  for (const [scope, entry] of Object.entries(SCOPE_CATALOGUE)) {
    if ((entry.roles as readonly Role[]).includes(role)) for (const permission of permissionsOf(scope) ?? []) held.add(permission);
  }
  return held;
}

/** The catalogue's scopes of `role`, as a client of that role is granted them when it asks for none. */
export function scopesOfRole(role: Role): CatalogueScope[] {
  return (Object.keys(SCOPE_CATALOGUE) as CatalogueScope[]).filter((scope) => (SCOPE_CATALOGUE[scope].roles as readonly Role[]).includes(role));
}

/**
 * Why `scope` may not be granted to a client limited to `allowed` permissions (its role's, or
 * fewer where it was registered with fewer), or undefined when it may: for RFC 6749's
 * `invalid_scope` with its `error_description`.
 */
export function scopeRefusal(scope: string, allowed: ReadonlySet<Permission>): string | undefined {
  const permissions = permissionsOf(scope);
  if (!permissions) return `"${scope.slice(0, 80)}" is not a scope of this service (SMART v2 system scopes, letters in cruds order, or a named api: scope)`;
  const missing = permissions.filter((permission) => !allowed.has(permission));
  return missing.length > 0 ? `this client may not be granted "${scope}" (${missing.join(', ')})` : undefined;
}

/** The permissions of a token's `scope` claim (space-separated, RFC 9068 2.2.3); unknown entries grant nothing. */
export function grantedPermissions(scopeClaim: string): ReadonlySet<Permission> {
  return new Set(scopeClaim.split(' ').flatMap((scope) => permissionsOf(scope) ?? []));
}
