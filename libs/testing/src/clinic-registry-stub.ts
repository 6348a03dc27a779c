import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Routing's internal clinic list (`GET /internal/clinics`) for tests of a service without routing:
 * the clinics given, each with its department keys. `clinics` may be changed while it runs. Like
 * routing, it answers 401 to a call without a bearer token (the caller's service token).
 */
export async function serveClinicRegistry(
  clinics: { ik: string; departments: string[] }[],
): Promise<{ url: string; clinics: typeof clinics; stop(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/internal/clinics') {
      res.writeHead(404).end();
      return;
    }
    if (!/^Bearer \S+$/.test(req.headers.authorization ?? '')) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized","message":"a bearer access token is required"}');
      return;
    }
    const items = clinics.map(({ ik, departments }) => ({
      ik,
      name: `Rehaklinik ${ik}`,
      // Services read the department keys; specialty and display are routing's presentation.
      departments: departments.map((code) => ({ code, specialty: code, display: code })),
    }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ items }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    clinics,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
