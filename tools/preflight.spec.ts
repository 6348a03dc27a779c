import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describeInfrastructure, loadConfig, postgresOf, rabbitMqOf, redisOf, startHintOf } from '@bedrequest/config';
import { freePort } from '@bedrequest/testing';
import { AuthConfig } from '../apps/auth/src/config';
import { IntakeConfig } from '../apps/intake/src/config';
import { INFRASTRUCTURE, checkInfrastructure } from './preflight.mjs';

const byName = Object.fromEntries(INFRASTRUCTURE.map((piece) => [piece.name, piece]));

describe('npm start preflight', () => {
  it('looks where the services look in development (npm start): their variables and local defaults', () => {
    const development = { NODE_ENV: 'development', SERVICE_CLIENT_SECRET: 's'.repeat(32) };
    const auth = loadConfig(AuthConfig, development);
    const intake = loadConfig(IntakeConfig, development);
    expect(byName.PostgreSQL).toMatchObject({ variable: 'DATABASE_URL', fallback: auth.DATABASE_URL });
    expect(byName.Redis).toMatchObject({ variable: 'REDIS_URL', fallback: auth.REDIS_URL });
    expect(byName.RabbitMQ).toMatchObject({ variable: 'AMQP_URL', fallback: intake.AMQP_URL });
  });

  it('names services that docker-compose.yml has', () => {
    const compose = parse(readFileSync(join(__dirname, '..', 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, unknown> };
    for (const piece of INFRASTRUCTURE) expect(Object.keys(compose.services)).toContain(piece.composeService);
  });

  it('says in one line each what is not reachable where, and how to start it, as the services say it', async () => {
    // Ports that were free a moment ago: nothing listens there.
    const [database, redis, broker] = await Promise.all([freePort(), freePort(), freePort()]);
    const env = {
      DATABASE_URL: `postgresql://postgres:secret@127.0.0.1:${database}/bedrequest`,
      REDIS_URL: `redis://127.0.0.1:${redis}`,
      AMQP_URL: `amqp://guest:secret@127.0.0.1:${broker}`,
    };
    const lines = await checkInfrastructure(env);
    expect(lines).toEqual(
      [postgresOf(env), redisOf(env), rabbitMqOf(env)].map((piece) => {
        const address = describeInfrastructure(piece).split(' at ')[1];
        return `${describeInfrastructure(piece)} is not reachable (connect ECONNREFUSED ${address}): ${startHintOf(piece)}`;
      }),
    );
    expect(lines.join('\n')).not.toContain('secret');
  });
});
