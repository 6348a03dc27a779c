import { loadConfig } from '@bedrequest/config';
import { run } from './cli';
import { AuthCliConfig } from './config';

// Entry point of `npm run admin -- user ...` (tools/admin.mjs bundles and runs this file).
async function main(): Promise<number> {
  let config: AuthCliConfig;
  try {
    config = loadConfig(AuthCliConfig);
  } catch (error) {
    console.error(`error: ${(error as Error).message.replace(/\s+/g, ' ')}`);
    return 1;
  }
  return run(process.argv.slice(2), { config, out: (line) => console.log(line), err: (line) => console.error(line) });
}

void main().then((code) => {
  process.exitCode = code;
});
