import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..');

/** The files jest selects for one project of jest.config.cjs, relative to the repository. */
function filesOf(project: string): string[] {
  const listed = spawnSync(
    process.execPath,
    [join(root, 'node_modules', 'jest', 'bin', 'jest.js'), '--listTests', '--selectProjects', project, '--config', 'jest.config.cjs'],
    {
      cwd: root,
      encoding: 'utf8',
    },
  );
  if (listed.status !== 0) throw new Error(`jest --listTests failed: ${listed.stderr}`);
  return listed.stdout
    .split('\n')
    .filter((line) => line.startsWith('/'))
    .map((path) => relative(root, path))
    .sort();
}

function integrationSpecsUnder(folder: string): string[] {
  return readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.int.spec.ts') && !path.includes('node_modules'))
    .map((path) => join(folder, path))
    .sort();
}

describe('the projects npm test runs side by side (tools/jest/lanes.mjs)', () => {
  it('puts every integration file in exactly one of integration and browser, the browser pages in browser', () => {
    const integration = filesOf('integration');
    const browser = filesOf('browser');
    const pages = [...integrationSpecsUnder('tools/e2e/inbox'), ...integrationSpecsUnder('tools/e2e/workspace')].sort();
    const everyIntegrationSpec = ['apps', 'libs', 'tools', 'bench'].flatMap(integrationSpecsUnder).sort();

    expect(pages.length).toBeGreaterThan(0);
    expect(browser).toEqual(pages);
    expect(integration.filter((file) => browser.includes(file))).toEqual([]);
    expect([...integration, ...browser].sort()).toEqual(everyIntegrationSpec);
  }, 60_000);
});
