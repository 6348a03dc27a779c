import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** docs/integration.md, the integrator's guide whose commands the guide test runs as written. */
export const GUIDE = join(__dirname, '..', '..', '..', 'docs', 'integration.md');

/**
 * The guide's shell commands: every fenced block whose info string is exactly `sh`, in order.
 * `console` blocks (a command with its output, such as starting the sandbox) are for reading only.
 */
export function guideCommands(markdown: string): string[] {
  const blocks: string[] = [];
  const fence = /^```([^\n`]*)\n([\s\S]*?)^```[ \t]*$/gm;
  for (const match of markdown.matchAll(fence)) {
    if (match[1]!.trim() === 'sh') blocks.push(match[2]!);
  }
  return blocks;
}

/** The addresses the guide names at its start (`API=…`, `WEB=…`), which the test points at its own sandbox. */
export interface GuideAddresses {
  readonly api: string;
  readonly web: string;
}

const ADDRESS_LINE = /^(API|WEB)=(\S+)$/gm;

/** The addresses the guide's commands set, as written. */
export function guideAddresses(blocks: readonly string[]): GuideAddresses {
  const found = new Map<string, string>();
  for (const block of blocks) for (const match of block.matchAll(ADDRESS_LINE)) found.set(match[1]!, match[2]!);
  const api = found.get('API');
  const web = found.get('WEB');
  if (!api || !web) throw new Error('docs/integration.md no longer sets API=… and WEB=… in a sh block');
  return { api, web };
}

/**
 * One bash script of the guide's blocks, as written but for the two addresses, which point at the
 * test's sandbox (on ports of its own, beside a developer's): it stops at the first failing command
 * (`set -euo pipefail`, and `curl -f` in the guide) and says before each block which one runs; at
 * its end it prints the variables named in `report`.
 */
export function guideScript(blocks: readonly string[], addresses: GuideAddresses, report: readonly string[] = []): string {
  const lines = ['set -euo pipefail'];
  blocks.forEach((block, index) => {
    lines.push(`echo "### guide block ${index + 1} of ${blocks.length}" >&2`);
    lines.push(block.replace(ADDRESS_LINE, (_line, name: string) => `${name}=${name === 'API' ? addresses.api : addresses.web}`));
  });
  // What the test reads back after the guide's last block, one `GUIDE name=value` line each.
  for (const name of report) lines.push(`printf 'GUIDE %s=%s\\n' ${name} "$${name}"`);
  return `${lines.join('\n')}\n`;
}

export const readGuide = (): string => readFileSync(GUIDE, 'utf8');
