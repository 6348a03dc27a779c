import express, { type RequestHandler } from 'express';
import request from 'supertest';
import { captureLogger } from '@bedrequest/testing';
import { HttpError } from './http-error';
import { jsonErrorHandler } from './error-handler';

class UnknownThingError extends Error {
  override name = 'UnknownThingError';
}

describe('jsonErrorHandler', () => {
  const serve = (route: RequestHandler, logger = captureLogger()) => {
    const app = express();
    app.post('/', express.json({ limit: '16kb' }), route);
    app.get('/', route);
    app.use(
      jsonErrorHandler(logger.logger, {
        domainErrors: (error) => (error instanceof UnknownThingError ? new HttpError('not_found', error.message) : undefined),
      }),
    );
    return { app, logger };
  };
  const echo: RequestHandler = (req, res) => res.json(req.body);

  it('answers a thrown HttpError with its status, code and message, and Retry-After when it has one', async () => {
    const { app } = serve(() => {
      throw new HttpError('unavailable', 'the store is unavailable; please retry', { retryAfterSeconds: 5 });
    });
    const response = await request(app).get('/');
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.body).toEqual({ error: 'unavailable', message: 'the store is unavailable; please retry' });
  });

  it('maps the service’s own errors through domainErrors', async () => {
    const { app } = serve(async () => {
      throw new UnknownThingError('no such thing');
    });
    const response = await request(app).get('/');
    expect([response.status, response.body]).toEqual([404, { error: 'not_found', message: 'no such thing' }]);
  });

  it('answers a body that is not JSON with 400 invalid_request', async () => {
    const { app } = serve(echo);
    const response = await request(app).post('/').set('content-type', 'application/json').send('{"name": ');
    expect([response.status, response.body]).toEqual([400, { error: 'invalid_request', message: 'the body is not valid JSON' }]);
  });

  it('answers a body over the limit with 413 payload_too_large, naming the limit', async () => {
    const { app } = serve(echo);
    const response = await request(app)
      .post('/')
      .set('content-type', 'application/json')
      .send(JSON.stringify({ text: 'x'.repeat(17 * 1024) }));
    expect([response.status, response.body]).toEqual([413, { error: 'payload_too_large', message: 'the body is larger than 16 KiB' }]);
  });

  it('answers an unsupported charset or content encoding with 415 unsupported_media_type', async () => {
    const { app } = serve(echo);
    const charset = await request(app).post('/').set('content-type', 'application/json; charset=ebcdic').send('{}');
    expect([charset.status, charset.body.error]).toEqual([415, 'unsupported_media_type']);
    const encoding = await request(app).post('/').set('content-type', 'application/json').set('content-encoding', 'compress').send('{}');
    expect([encoding.status, encoding.body.error]).toEqual([415, 'unsupported_media_type']);
  });

  it('answers an unexpected failure with 500 internal_error and logs where it failed, not its message', async () => {
    const { app, logger } = serve(() => {
      throw new TypeError('cannot read Mustermann, Erika');
    });
    const response = await request(app).get('/');
    expect([response.status, response.body]).toEqual([500, { error: 'internal_error', message: 'internal error' }]);
    expect(logger.text()).toContain('"errorType":"TypeError"');
    expect(logger.text()).not.toContain('Mustermann');
  });
});
