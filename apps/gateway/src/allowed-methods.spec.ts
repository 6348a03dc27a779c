import express, { Router, type RequestHandler } from 'express';
import request from 'supertest';
import { silentLogger } from '@bedrequest/testing';
import { allowedMethods } from './allowed-methods';
import { errorHandler, unknownPath } from './http-errors';

describe('allowedMethods', () => {
  const ok: RequestHandler = (_req, res) => {
    res.json({ ok: true });
  };
  const refuseEveryone: RequestHandler = (_req, res) => {
    res.status(401).json({ error: 'unauthorized', message: 'a bearer access token is required' });
  };

  /** Routes as the gateway mounts them: on the app, in routers behind a guard, and a router mounted after the middleware. */
  const app = () => {
    const sut = express();
    sut.use(allowedMethods(sut));
    sut.get('/', ok);
    sut.post('/api/v2/fhir/Bundle', refuseEveryone, ok);
    const tasks = Router();
    tasks.get('/Task', ok);
    tasks.get('/Task/:id', ok);
    sut.use('/api/v2/fhir', refuseEveryone, tasks);
    const items = Router();
    items.route('/').get(ok).post(ok);
    items.put('/:id', ok);
    items.delete('/:id', ok);
    const nested = Router();
    nested.use('/items', items);
    sut.use('/api/v1', nested);
    const anything = Router();
    anything.all('/echo', ok);
    sut.use('/api/v1/any', anything);
    sut.use(unknownPath);
    sut.use(errorHandler(silentLogger()));
    return sut;
  };

  it.each([
    ['DELETE', '/api/v1/items', 'GET, HEAD, OPTIONS, POST'],
    ['GET', '/api/v1/items/42', 'DELETE, OPTIONS, PUT'],
    ['PUT', '/api/v2/fhir/Task/42', 'GET, HEAD, OPTIONS'],
    ['GET', '/api/v2/fhir/Bundle', 'OPTIONS, POST'],
    ['POST', '/', 'GET, HEAD, OPTIONS'],
  ])('answers %s %s with 405 and Allow: %s, read from the routers', async (method, path, allow) => {
    const response = await request(app())[method.toLowerCase() as 'get'](path);

    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe(allow);
  });

  it('answers in the form of the endpoint: an OperationOutcome on FHIR paths, {"error", "message"} elsewhere', async () => {
    const fhir = await request(app()).delete('/api/v2/fhir/Task/42');
    const api = await request(app()).patch('/api/v1/items/42?secret=1');

    expect(fhir.headers['content-type']).toMatch(/^application\/fhir\+json/);
    expect(fhir.body).toEqual({
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'error', code: 'not-supported', diagnostics: 'DELETE is not allowed on /api/v2/fhir/Task/42; it takes GET, HEAD, OPTIONS' }],
    });
    expect(api.body).toEqual({ error: 'method_not_allowed', message: 'PATCH is not allowed on /api/v1/items/42; it takes DELETE, OPTIONS, PUT' });
  });

  it('answers OPTIONS with 204 and Allow, before any guard', async () => {
    const response = await request(app()).options('/api/v2/fhir/Task');

    expect([response.status, response.headers.allow, response.text]).toEqual([204, 'GET, HEAD, OPTIONS', '']);
  });

  it('lets a method the path takes (HEAD where GET is) on to its route and guards', async () => {
    expect((await request(app()).get('/api/v1/items')).status).toBe(200);
    expect((await request(app()).head('/api/v1/items')).status).toBe(200);
    expect((await request(app()).get('/api/v2/fhir/Task/42')).status).toBe(401);
  });

  it('leaves unknown paths, paths below a route and routes taking every method to the routes and the 404', async () => {
    expect((await request(app()).delete('/api/v1/itemsx')).status).toBe(404);
    expect((await request(app()).delete('/api/v1/items/42/parts')).status).toBe(404);
    expect((await request(app()).options('/nothing')).status).toBe(404);
    expect((await request(app()).delete('/api/v1/any/echo')).status).toBe(200);
  });
});
