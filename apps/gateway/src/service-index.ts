import type { RequestHandler } from 'express';

/**
 * The version of the service, as package.json gives it (service-index.spec.ts keeps the two equal:
 * the bundle cannot read package.json, which the image does not carry, and a service may not
 * import a file outside its project).
 */
export const SERVICE_VERSION = '0.1.0';

/**
 * `GET /`: what answers here and where to begin, as JSON (an integrator's first request, or a
 * client probing the base address): the service, its version, and the addresses of the OpenAPI
 * document, the FHIR base and its CapabilityStatement, and the open status check.
 */
export const serviceIndex: RequestHandler = (_req, res) => {
  res.json({
    service: 'Bed Occupancy Request Service',
    version: SERVICE_VERSION,
    links: {
      openapi: '/api/openapi.json',
      fhirBase: '/api/v2/fhir',
      capabilityStatement: '/api/v2/fhir/metadata',
      tokenStatus: '/api/v1/token/status',
    },
    documentation: 'docs/api.md in the source repository; the OpenAPI document describes every endpoint',
  });
};
