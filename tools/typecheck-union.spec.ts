import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * `npm run lint` typechecks the projects in one program (tsconfig.typecheck.json) and tools/e2e on
 * its own, instead of one `tsc -p` per project's typecheck target. That is the same check only while
 * every project's target is covered: its files among the program's, under the same compiler options,
 * or its tsconfig checked by the lint script itself. A new project (or a new tsconfig option) that
 * would otherwise go unchecked in CI fails here.
 */
const root = join(__dirname, '..');
const relativeToRoot = (file: string) => relative(root, file);

function parsed(tsconfig: string): ts.ParsedCommandLine {
  const config = ts.getParsedCommandLineOfConfigFile(join(root, tsconfig), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error(`${tsconfig} could not be read`);
  return config;
}

/** Each project's typecheck command's tsconfig (`tsc -p <tsconfig>`), by project folder. */
function typecheckTargets(): string[] {
  const folders = ['apps', 'libs', 'tools'].flatMap((parent) =>
    readdirSync(join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${parent}/${entry.name}`),
  );
  return [...folders, 'tools', 'bench']
    .filter((folder) => existsSync(join(root, folder, 'project.json')))
    .map((folder) => {
      const project = JSON.parse(readFileSync(join(root, folder, 'project.json'), 'utf8')) as { targets?: { typecheck?: { options?: { command?: string } } } };
      const command = project.targets?.typecheck?.options?.command ?? '';
      const tsconfig = /^tsc -p (\S+)$/.exec(command)?.[1];
      if (!tsconfig) throw new Error(`${folder}: its typecheck target is not "tsc -p <tsconfig>": ${command}`);
      return tsconfig;
    });
}

/** The compiler options as JSON text, without the path of the file they were read from. */
const optionsOf = (config: ts.ParsedCommandLine) => JSON.stringify({ ...config.options, configFilePath: undefined });

describe("npm run lint's typecheck", () => {
  const lintScript = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.lint ?? '';
  const union = parsed('tsconfig.typecheck.json');
  const unionFiles = new Set(union.fileNames.map(relativeToRoot));
  const unionOptions = optionsOf(union);

  it('runs tsconfig.typecheck.json, and checks every project: in that program, or with a tsc of its own', () => {
    expect(lintScript).toContain('tsc -p tsconfig.typecheck.json');
    const uncovered = typecheckTargets().flatMap((tsconfig) => {
      if (lintScript.includes(`tsc -p ${tsconfig}`)) return [];
      const project = parsed(tsconfig);
      const options = optionsOf(project);
      const missing = project.fileNames.map(relativeToRoot).filter((file) => !unionFiles.has(file));
      const sameOptions = options === unionOptions;
      return missing.length === 0 && sameOptions
        ? []
        : [`${tsconfig}: ${sameOptions ? `${missing.length} files outside the program, e.g. ${missing[0]}` : 'other compiler options'}`];
    });
    expect(uncovered).toEqual([]);
  });
});
