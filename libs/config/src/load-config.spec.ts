import { z } from 'zod';
import { baseServiceEnv } from './base-service';
import { loadConfig, ConfigError } from './load-config';
import * as env from './env-schemas';
import { configSchema } from './production-rule';

const Schema = configSchema({ ...baseServiceEnv, PORT: env.port(8080), FLAG: env.bool(false) });

describe('loadConfig', () => {
  it('defaults every variable to the local services in development', () => {
    expect(loadConfig(Schema, { NODE_ENV: 'development' })).toMatchObject({
      AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
      AMQP_NAMESPACE: 'bedrequest',
      PORT: 8080,
      FLAG: false,
      LOG_LEVEL: 'info',
    });
  });

  it('parses numbers and booleans from their string form', () => {
    expect(loadConfig(Schema, { NODE_ENV: 'development', PORT: '9000', FLAG: 'true', AMQP_PREFETCH: '4' })).toMatchObject({
      PORT: 9000,
      FLAG: true,
      AMQP_PREFETCH: 4,
    });
  });

  it('refuses bad values with one line per variable naming it', () => {
    const attempt = () => loadConfig(Schema, { PORT: 'eighty', AMQP_URL: 'http://broker', LOG_LEVEL: 'loud' });
    expect(attempt).toThrow(ConfigError);
    const message = (() => {
      try {
        attempt();
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(
      message
        .split('\n')
        .slice(1)
        .map((line) => line.trim().split(':')[0])
        .sort(),
    ).toEqual(['AMQP_URL', 'LOG_LEVEL', 'PORT']);
    expect(message).toContain('amqp: or amqps:');
  });
});

describe('TRUSTED_PROXIES', () => {
  const Proxies = z.object({ TRUSTED_PROXIES: env.trustedProxies });

  it('trusts no proxy by default', () => {
    expect(loadConfig(Proxies, {}).TRUSTED_PROXIES).toEqual([]);
  });

  it('reads addresses, CIDR ranges and the named ranges, comma- or space-separated', () => {
    expect(loadConfig(Proxies, { TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.7 fd00::/8,loopback' }).TRUSTED_PROXIES).toEqual([
      '10.0.0.0/8',
      '192.168.1.7',
      'fd00::/8',
      'loopback',
    ]);
  });

  it('refuses an entry express could not read, naming it', () => {
    expect(() => loadConfig(Proxies, { TRUSTED_PROXIES: '10.0.0.0/8,gateway.internal,10.0.0.0/33' })).toThrow(
      /TRUSTED_PROXIES: "gateway.internal" is not an IP address[^\n]*\n\s+TRUSTED_PROXIES: "10.0.0.0\/33" is not/,
    );
  });
});
