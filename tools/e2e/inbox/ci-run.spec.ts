import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHROMIUM } from './chromium-path';

const ciRun = readFileSync(join(__dirname, '..', '..', '..', '.ci', 'run'), 'utf8');
/** .ci/run's side_by_side and the functions after it, up to its call. */
const sideBySide = /^side_by_side\(\) \{[^\n]*\n[\s\S]*?\n(?=side_by_side )/m.exec(ciRun)?.[0] ?? '';

describe('.ci/run', () => {
  it('makes sure Chromium is at the path the browser tests launch, and stops when it is not', () => {
    // Installing a package whose binary lands elsewhere would leave every inbox test skipped, green.
    expect(ciRun).toContain(`CHROMIUM=${CHROMIUM}\n`);
    const checks = ciRun.split('\n').filter((line) => line.startsWith('[ -x "$CHROMIUM" ]'));
    expect(checks).toHaveLength(2);
    expect(checks[1]).toMatch(/exit 1; }$/);
  });

  it('builds once, then runs the README test command with the fault suite and format and lint beside it, the checks in the idle scheduling class', () => {
    const lines = ciRun.split('\n');
    expect(lines.filter((line) => /^npm (ci|run|test)/.test(line))).toEqual(['npm ci --no-audit --no-fund']);
    const build = lines.findIndex((line) => line.includes('nx run-many -t build '));
    const skip = lines.indexOf('export TEST_SKIP_BUILD=1');
    const run = lines.findIndex((line) => line.startsWith('side_by_side '));
    expect(build).toBeGreaterThan(lines.indexOf('npm ci --no-audit --no-fund'));
    expect(skip).toBeGreaterThan(build);
    expect(run).toBeGreaterThan(skip);
    expect(lines[run]).toBe(`side_by_side 'npm run format:check && npm run lint' 'npm test' 'npm run test:faults' \\`);
    expect(lines[run + 1]).toBe("  'node tools/node24.cjs node tools/faults/support/private-services.cjs reap'");
    expect(sideBySide).toContain('chrt --idle 0 bash -c "$1" </dev/null >"$checks_log" 2>&1 &');
    // Its verdict is the run's: side_by_side ends the script.
    expect(lines.slice(run + 2).filter((line) => line.trim() !== '')).toEqual([]);
  });

  describe('side by side: the tests, the fault suite and the checks', () => {
    let folder: string;
    beforeEach(() => {
      folder = mkdtempSync(join(tmpdir(), 'ci-run-'));
    });
    afterEach(() => rmSync(folder, { recursive: true, force: true }));

    /** A stand-in run: notes its process id, says it started, takes `seconds`, says it ended, exits with `exit`. */
    const standIn = (name: string, seconds: number, exit = 0) =>
      `echo $$ > ${join(folder, `${name}.pid`)}; echo ${name} started; sleep ${seconds}; echo ${name} ended; exit ${exit}`;
    const run = (checks: string, tests: string, faults: string) =>
      spawnSync('bash', ['-c', `set -euo pipefail\n${sideBySide}\nside_by_side "$@"`, 'ci', checks, tests, faults, `touch ${join(folder, 'reaped')}`], {
        encoding: 'utf8',
        timeout: 30_000,
      });
    /** Whether the stand-in still runs once the script has ended (a zombie runs no more). */
    const running = (name: string) => {
      const status = `/proc/${readFileSync(join(folder, `${name}.pid`), 'utf8').trim()}/status`;
      return existsSync(status) && !/^State:\s+Z/m.test(readFileSync(status, 'utf8'));
    };
    const reaped = () => existsSync(join(folder, 'reaped'));

    it('waits for all three, the fault suite’s output after the tests’, the checks’ last, and exits 0', () => {
      const result = run(standIn('checks', 0.2), standIn('tests', 1), standIn('faults', 0.5));
      expect(result.stderr).toBe('');
      expect(result.stdout.split('\n')).toEqual([
        'tests started',
        'tests ended',
        'ci: the fault suite, run beside the tests:',
        'faults started',
        'faults ended',
        'ci: format:check and lint, run beside the tests:',
        'checks started',
        'checks ended',
        '',
      ]);
      expect(result.status).toBe(0);
      expect(reaped()).toBe(false);
    });

    it('stops the fault suite when the tests fail, shows what it wrote so far and removes its services', () => {
      const result = run(standIn('checks', 20), standIn('tests', 0.5, 3), standIn('faults', 20));
      expect(result.status).toBe(3);
      expect(result.stderr).toContain('ci: npm test failed (exit 3)\nci: the fault suite stopped unfinished; its output so far:\nfaults started\n');
      expect(result.stderr).toContain('ci: format:check and lint stopped unfinished; their output so far:\nchecks started\n');
      expect([running('faults'), running('checks'), reaped()]).toEqual([false, false, true]);
    });

    it('stops the tests when the fault suite fails first, and shows its output', () => {
      const result = run(standIn('checks', 20), standIn('tests', 20), standIn('faults', 0.5, 4));
      expect(result.status).toBe(4);
      expect(result.stdout).toContain('faults started\nfaults ended\n');
      expect(result.stderr).toContain('ci: npm run test:faults failed (exit 4)\nci: npm test stopped unfinished\n');
      expect([running('tests'), running('checks'), reaped()]).toEqual([false, false, false]);
    });

    it('fails when the one that ends second fails, and with the checks’ status when only they fail', () => {
      expect(run(standIn('checks', 0), standIn('tests', 1, 5), standIn('faults', 0.2)).status).toBe(5);
      const checksFailed = run(standIn('checks', 0.2, 6), standIn('tests', 0.2), standIn('faults', 0.5));
      expect(checksFailed.status).toBe(6);
      expect(checksFailed.stderr).toBe('ci: format:check or lint failed (exit 6)\n');
    });
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
