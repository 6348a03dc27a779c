import type { RequestHandler } from 'express';
import type { SystemClientSecurity } from '@bedrequest/fhir-model';
import {
  CLIENT_ASSERTION_ALGORITHMS,
  CLIENT_AUTH_METHOD,
  CLIENT_GRANT_TYPE,
  SCOPE_CATALOGUE,
  clientTokenEndpoint,
  type CatalogueScope,
} from '@bedrequest/tokens';

/** What system clients are told (docs/parties.md, "System clients and scopes"), from the public API's address. */
export function systemClientSecurity(publicApiUrl: string): SystemClientSecurity {
  return {
    tokenEndpoint: clientTokenEndpoint(publicApiUrl),
    grantType: CLIENT_GRANT_TYPE,
    authMethod: CLIENT_AUTH_METHOD,
    algorithms: CLIENT_ASSERTION_ALGORITHMS,
    scopes: Object.keys(SCOPE_CATALOGUE) as CatalogueScope[],
  };
}

/**
 * `GET [base]/.well-known/smart-configuration` (SMART App Launch 2, "Conformance"): the token
 * endpoint, how clients authenticate there and what they may ask for, open without a token like the
 * CapabilityStatement. Backend Services only: no authorization endpoint, since no person is sent
 * to log in there (people use the password login, docs/api.md).
 */
export function smartConfigurationRoute(security: SystemClientSecurity): RequestHandler {
  const document = JSON.stringify({
    token_endpoint: security.tokenEndpoint,
    grant_types_supported: [security.grantType],
    token_endpoint_auth_methods_supported: [security.authMethod],
    token_endpoint_auth_signing_alg_values_supported: security.algorithms,
    scopes_supported: security.scopes,
    capabilities: ['client-confidential-asymmetric', 'permission-v2'],
  });
  return (_req, res) => {
    res.type('application/json').setHeader('Cache-Control', 'public, max-age=3600');
    res.send(document);
  };
}
