import express from 'express';
import request from 'supertest';
import { silentLogger } from '@bedrequest/testing';
import { errorHandler } from './http-errors';
import { JSON_SHAPE_LIMITS, jsonBody } from './json-body';

const { depth: MAX_DEPTH, members: MAX_MEMBERS } = JSON_SHAPE_LIMITS;

const app = () =>
  express()
    .post('/api/v1/things', ...jsonBody({ limit: 10 * 2 ** 20 }), (req, res) => void res.json({ keys: Object.keys(req.body as object) }))
    .use(errorHandler(silentLogger()));
const nested = (depth: number, [open, close]: [string, string] = ['[', ']']) => `{"a":${open.repeat(depth - 1)}1${close.repeat(depth - 1)}}`;

/**
 * The JSON body of every route that takes one (docs/api.md, "Validation choices"): its nesting and
 * the members of each array and object are bounded before it is parsed, since parsing and
 * validating them cost far more than their bytes (a body of 2 MB nested a million levels took
 * seconds of the event loop, a bundle with one object of 100,000 keys most of a second), and the
 * FHIR guard's own bounds (libs/fhir-model, json-guard.ts) can only look once it is parsed.
 */
describe('jsonBody', () => {
  afterEach(() => jest.restoreAllMocks());

  it(`takes a body nested ${MAX_DEPTH} levels deep`, async () => {
    const answer = await request(app()).post('/api/v1/things').set('content-type', 'application/json').send(nested(MAX_DEPTH));
    expect(answer.status).toBe(200);
  });

  it.each([
    ['arrays', MAX_DEPTH + 1, ['[', ']']],
    ['objects', MAX_DEPTH + 1, ['{"n":', '}']],
    ['arrays', 1_000_000, ['[', ']']],
    ['objects', 100_000, ['{"n":', '}']],
  ] as const)('refuses %s nested %i levels deep with 400 without parsing them', async (_kind, depth, brackets) => {
    const parse = jest.spyOn(JSON, 'parse');
    const answer = await request(app())
      .post('/api/v1/things')
      .set('content-type', 'application/json')
      .send(nested(depth, [...brackets]));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'invalid_request', message: `the body is nested deeper than ${MAX_DEPTH} levels` });
    expect(parse.mock.calls.filter(([text]) => String(text).startsWith('{"a":'))).toEqual([]);
  });

  it(`takes arrays and objects of ${MAX_MEMBERS} members`, async () => {
    const body = {
      items: Array.from({ length: MAX_MEMBERS }, (_, n) => n),
      keys: Object.fromEntries(Array.from({ length: MAX_MEMBERS }, (_, n) => [`k${n}`, n])),
    };
    expect((await request(app()).post('/api/v1/things').send(body)).status).toBe(200);
  });

  it.each([
    ['an array', { items: Array.from({ length: MAX_MEMBERS + 1 }, (_, n) => n) }],
    ['an object', { a: 1, keys: Object.fromEntries(Array.from({ length: 100_000 }, (_, n) => [`k${n}`, n])) }],
    ['the body itself', Object.fromEntries(Array.from({ length: MAX_MEMBERS + 1 }, (_, n) => [`a${n}`, n]))],
  ])(`refuses %s of more than ${MAX_MEMBERS} members with 400 without parsing it`, async (_what, body) => {
    const text = JSON.stringify(body);
    const parse = jest.spyOn(JSON, 'parse');
    const answer = await request(app()).post('/api/v1/things').set('content-type', 'application/json').send(text);
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'invalid_request', message: `the body has an array or object of more than ${MAX_MEMBERS} members` });
    expect(parse.mock.calls.filter(([parsed]) => parsed === text)).toEqual([]);
  });

  /** A body in its bytes as given (supertest would send a Buffer with a JSON content type as JSON). */
  const postBytes = async (charset: string, body: Buffer) => {
    const server = app().listen(0, '127.0.0.1');
    try {
      await new Promise((resolve) => server.once('listening', resolve));
      const response = await fetch(`http://127.0.0.1:${(server.address() as { port: number }).port}/api/v1/things`, {
        method: 'POST',
        headers: { 'content-type': `application/json; charset=${charset}` },
        body,
      });
      return { status: response.status, body: (await response.json()) as unknown };
    } finally {
      server.close();
    }
  };

  it('checks a UTF-16 body for its depth as well, and reads one that is not too deep', async () => {
    const utf16 = (text: string) => Buffer.from(text, 'utf16le');
    expect(await postBytes('utf-16le', utf16(nested(1_000)))).toMatchObject({
      status: 400,
      body: { message: `the body is nested deeper than ${MAX_DEPTH} levels` },
    });
    expect(await postBytes('utf-16le', utf16('{"ä":"[[[["}'))).toEqual({ status: 200, body: { keys: ['ä'] } });
  });

  it('answers 415 for a charset whose depth it cannot read', async () => {
    expect(await postBytes('utf-32', Buffer.alloc(16))).toEqual({
      status: 415,
      body: { error: 'unsupported_media_type', message: 'unsupported charset "UTF-32"' },
    });
  });
});
