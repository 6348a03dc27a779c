import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_VERSION } from './service-index';

describe('the service index', () => {
  it('states the version package.json gives', () => {
    const { version } = JSON.parse(readFileSync(join(__dirname, '../../../package.json'), 'utf8')) as { version: string };

    expect(SERVICE_VERSION).toBe(version);
  });
});
