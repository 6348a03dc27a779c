import { grantedPermissions, permissionsOf, permissionsOfRole, scopeRefusal, scopesOfRole } from './scopes';

describe('SMART v2 system scopes and the named api: scopes', () => {
  it('writes a system scope out into its permissions, letters in cruds order only', () => {
    expect(permissionsOf('system/Task.rs')).toEqual(['Task.r', 'Task.s']);
    expect(permissionsOf('system/Bundle.c')).toEqual(['Bundle.c']);
    expect(permissionsOf('system/Task.sr')).toBeUndefined();
    expect(permissionsOf('system/Task.rr')).toBeUndefined();
    expect(permissionsOf('system/Task.read')).toBeUndefined();
    expect(permissionsOf('patient/Task.rs')).toBeUndefined();
    expect(permissionsOf('system/*.rs')).toBeUndefined();
    expect(permissionsOf('api:party')).toEqual(['api:party']);
    expect(permissionsOf('api:everything')).toBeUndefined();
  });

  it("maps the catalogue onto the roles: a clinic holds no referrer's scope", () => {
    expect(scopesOfRole('clinic')).toEqual(['system/Task.rs', 'system/AuditEvent.rs', 'api:kliniken', 'api:party', 'api:clinic']);
    const clinic = permissionsOfRole('clinic');
    expect(scopeRefusal('system/Task.r', clinic)).toBeUndefined();
    expect(scopeRefusal('system/Bundle.c', clinic)).toBe('this client may not be granted "system/Bundle.c" (Bundle.c)');
    expect(scopeRefusal('system/Task.rus', clinic)).toBe('this client may not be granted "system/Task.rus" (Task.u)');
    expect(scopeRefusal('api:referrer', clinic)).toMatch(/may not be granted/);
    expect(scopeRefusal('openid', clinic)).toMatch(/is not a scope of this service/);
    expect(scopeRefusal('system/Bundle.c', permissionsOfRole('referrer'))).toBeUndefined();
  });

  it("reads a token's scope claim; what it does not know grants nothing", () => {
    expect([...grantedPermissions('system/Task.rs api:party nonsense')]).toEqual(['Task.r', 'Task.s', 'api:party']);
    expect(grantedPermissions('').size).toBe(0);
  });
});
