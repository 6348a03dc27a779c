import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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

  it('runs the README test command and the fault suite, with format and lint beside them in the idle scheduling class', () => {
    const lines = ciRun.split('\n');
    const steps = lines.filter((line) => /^npm (ci|run|test)/.test(line));
    expect(steps).toEqual(['npm ci --no-audit --no-fund', 'npm run pretest', 'npm test', 'npm run test:faults']);
    const checks = lines.findIndex((line) => line.startsWith(`chrt --idle 0 bash -c 'npm run format:check && npm run lint' `) && line.endsWith(' &'));
    expect(checks).toBeGreaterThan(lines.indexOf('npm run pretest'));
    expect(checks).toBeLessThan(lines.indexOf('npm test'));
    // Their verdict is the run's: waited for after the fault suite, and the script's exit status.
    const waited = lines.findIndex((line) => line.startsWith('wait "$checks"'));
    expect(waited).toBeGreaterThan(lines.indexOf('npm run test:faults'));
    expect(lines.slice(waited).filter((line) => line.startsWith('exit '))).toEqual(['exit "$checks_status"']);
  });

  describe("installs Debian's prometheus (for promtool) without letting the package start its server", () => {
    const POLICY = '/usr/sbin/policy-rc.d';
    /** The function .ci/run installs packages with, its policy-rc.d moved into `folder`. */
    const installer = (folder: string) => {
      const definition = /^install_without_starting\(\) \{\n[\s\S]*?\n\}$/m.exec(ciRun)?.[0];
      if (!definition) throw new Error('.ci/run defines no install_without_starting');
      expect(definition).toContain(POLICY);
      return definition.replaceAll(POLICY, join(folder, 'policy-rc.d'));
    };
    let folder: string;
    beforeEach(() => {
      folder = mkdtempSync(join(tmpdir(), 'ci-run-'));
      mkdirSync(join(folder, 'bin'));
      // apt-get as a package's postinst sees the world: it asks policy-rc.d (invoke-rc.d's rule)
      // whether it may start its service, and writes down the answer.
      writeFileSync(
        join(folder, 'bin', 'apt-get'),
        `#!/bin/sh\n[ "$1" = install ] || exit 0\n"${join(folder, 'policy-rc.d')}" prometheus start; echo $? >> "${join(folder, 'asked')}"\nexit \${APT_EXIT:-0}\n`,
      );
      chmodSync(join(folder, 'bin', 'apt-get'), 0o755);
    });
    afterEach(() => rmSync(folder, { recursive: true, force: true }));

    const install = (aptExit = 0) =>
      spawnSync('bash', ['-c', `set -euo pipefail\n${installer(folder)}\ninstall_without_starting prometheus`], {
        env: { ...process.env, PATH: `${join(folder, 'bin')}:${process.env.PATH}`, APT_EXIT: String(aptExit) },
        encoding: 'utf8',
      });
    const asked = () => readFileSync(join(folder, 'asked'), 'utf8').trim();

    it('in place of ending it by name afterwards', () => {
      expect(ciRun).not.toMatch(/\b(pkill|killall)\b/);
      expect(ciRun.split('\n').filter((line) => /\bprometheus\b/.test(line) && !line.startsWith('#'))).toEqual([
        'command -v promtool >/dev/null || install_without_starting prometheus',
      ]);
    });

    it('refuses every start during the install (101, "action forbidden") and leaves no policy behind where there was none', () => {
      expect(install().status).toBe(0);
      expect(asked()).toBe('101');
      expect(existsSync(join(folder, 'policy-rc.d'))).toBe(false);
    });

    it("puts back the machine's own policy afterwards (a Docker image's), and does so when the install fails too", () => {
      const own = '#!/bin/sh\nexit 0\n';
      writeFileSync(join(folder, 'policy-rc.d'), own, { mode: 0o755 });
      expect(install().status).toBe(0);
      expect(asked()).toBe('101');
      expect(readFileSync(join(folder, 'policy-rc.d'), 'utf8')).toBe(own);
      expect(install(100).status).not.toBe(0);
      expect(asked()).toBe('101\n101');
      expect(readFileSync(join(folder, 'policy-rc.d'), 'utf8')).toBe(own);
    });
  });
});
