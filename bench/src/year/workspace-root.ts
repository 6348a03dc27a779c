// The workspace's root (where nx.json is), found from this module: in the source tree or in the
// bench's bundle under tmp/bench. As @bedrequest/stack finds it, without loading the stack.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

function workspaceRootAbove(directory: string): string {
  for (let current = directory; ; current = dirname(current)) {
    if (existsSync(join(current, 'nx.json'))) return current;
    if (dirname(current) === current) throw new Error(`no workspace (nx.json) above ${directory}`);
  }
}

export const root = workspaceRootAbove(__dirname);
