import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHROMIUM } from './chromium-path';

const ciRun = readFileSync(join(__dirname, '..', '..', '..', '.ci', 'run'), 'utf8');

describe('.ci/run', () => {
  it('makes sure Chromium is at the path the browser tests launch, and stops when it is not', () => {
    // Installing a package whose binary lands elsewhere would leave every inbox test skipped, green.
    expect(ciRun).toContain(`CHROMIUM=${CHROMIUM}\n`);
    const checks = ciRun.split('\n').filter((line) => line.startsWith('[ -x "$CHROMIUM" ]'));
    expect(checks).toHaveLength(2);
    expect(checks[1]).toMatch(/exit 1; }$/);
  });

  it('runs the README test command and the fault suite after format and lint', () => {
    const steps = ciRun.split('\n').filter((line) => /^npm (ci|run|test)/.test(line));
    expect(steps).toEqual(['npm ci --no-audit --no-fund', 'npm run format:check', 'npm run lint', 'npm test', 'npm run test:faults']);
  });
});
