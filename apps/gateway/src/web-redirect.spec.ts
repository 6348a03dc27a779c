import express from 'express';
import request from 'supertest';
import { redirectToWeb } from './web-redirect';

describe("the clinic inbox's old address on the gateway", () => {
  const app = express().get(['/inbox', '/inbox/*path'], redirectToWeb('https://web.example:8443/'));

  it('sends a bookmark to the same page of the web app, path and query kept', async () => {
    const answer = await request(app).get('/inbox/tasks/0b7c7a53-6a1c-4f4e-9a51-6b8f6f0f9d41?answered=1');
    expect(answer.status).toBe(301);
    expect(answer.headers.location).toBe('https://web.example:8443/inbox/tasks/0b7c7a53-6a1c-4f4e-9a51-6b8f6f0f9d41?answered=1');
    expect(answer.headers['cache-control']).toBe('max-age=86400');
    expect((await request(app).get('/inbox')).headers.location).toBe('https://web.example:8443/inbox');
  });

  it('answers nothing but GET and HEAD with the redirect', async () => {
    expect((await request(app).head('/inbox/login')).status).toBe(301);
    expect((await request(app).post('/inbox/login')).status).toBe(404);
  });
});
