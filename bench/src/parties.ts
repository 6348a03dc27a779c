import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { root } from '@bedrequest/stack';

const execute = promisify(execFile);

/** `npm run admin -- ...` against the bench stack's database. */
export async function admin(env: NodeJS.ProcessEnv, ...args: string[]): Promise<void> {
  await execute(process.execPath, [join(root, 'tools', 'admin.mjs'), ...args], { cwd: root, env });
}

export async function login(gatewayUrl: string, username: string, password: string): Promise<{ token: string; partyId: string }> {
  const response = await fetch(`${gatewayUrl}/api/v1/token/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (!response.ok) throw new Error(`login of ${username} failed: ${response.status}`);
  const { accessToken } = (await response.json()) as { accessToken: string };
  const claims = JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()) as { sub: string };
  return { token: accessToken, partyId: claims.sub };
}
