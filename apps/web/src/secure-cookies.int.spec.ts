import { loadConfig } from '@bedrequest/config';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { WebConfig } from './config';
import { startWeb, type RunningWeb } from './start';

/** The web app on the run's Redis, configured by exactly `environment` (no NODE_ENV of this process). */
function webWith(environment: Record<string, string>): Promise<RunningWeb> {
  const env = testEnvironment();
  return startWeb(
    loadConfig(WebConfig, {
      REDIS_URL: env.redisUrl,
      REDIS_KEY_PREFIX: `${env.redisKeyPrefix}${uniqueName('web')}:`,
      WEB_CSRF_SECRET: 'w'.repeat(32),
      WEB_PORT: '0',
      WEB_INTERNAL_PORT: '0',
      LOG_LEVEL: 'silent',
      ...environment,
    }),
  );
}

/** The cookie the login page sets (the login form's id). */
async function loginCookie(web: RunningWeb): Promise<string> {
  const response = await fetch(`${web.url}/inbox/login`);
  expect(response.status).toBe(200);
  const [cookie] = response.headers.getSetCookie();
  expect(cookie).toMatch(/^inbox_login=/);
  return cookie!;
}

describe("the inbox's cookies", () => {
  const running: RunningWeb[] = [];
  afterAll(() => Promise.all(running.map((web) => web.stop())));

  it('are Secure when NODE_ENV is unset (production)', async () => {
    const web = await webWith({});
    running.push(web);
    expect((await loginCookie(web)).split('; ')).toEqual(expect.arrayContaining(['Secure', 'HttpOnly', 'SameSite=Strict', 'Path=/inbox']));
  });

  it('are not Secure in development, where the inbox is served over plain http', async () => {
    const web = await webWith({ NODE_ENV: 'development' });
    running.push(web);
    expect((await loginCookie(web)).split('; ')).not.toContain('Secure');
  });
});
