import express from 'express';
import request from 'supertest';
import { openApiDocument } from './openapi-document';
import { openApiRoute } from './openapi-route';

describe('GET /api/openapi.json', () => {
  it('builds the document once and answers each request with its own server address', async () => {
    let builds = 0;
    const app = express().get(
      '/api/openapi.json',
      openApiRoute({
        build: (serverUrl) => {
          builds++;
          return openApiDocument({ serverUrl });
        },
      }),
    );

    const first = await request(app).get('/api/openapi.json').set('host', 'api.example:8080');
    const second = await request(app).get('/api/openapi.json').set('host', 'other.example');
    const third = await request(app).get('/api/openapi.json').set('host', 'api.example:8080');

    expect(builds).toBe(1);
    expect([first, second, third].map((answer) => [answer.status, answer.body.servers])).toEqual([
      [200, [{ url: 'http://api.example:8080' }]],
      [200, [{ url: 'http://other.example' }]],
      [200, [{ url: 'http://api.example:8080' }]],
    ]);
    expect({ ...second.body, servers: first.body.servers }).toEqual(first.body);
  });
});
