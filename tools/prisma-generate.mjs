// Generates a service's Prisma client from apps/<service>/prisma/schema.prisma.
//
// The prisma CLI checks for its native schema engine even for `generate`, which does not use it, and
// tries to download it, which fails on machines without internet. Pointing
// PRISMA_SCHEMA_ENGINE_BINARY at any existing file skips that (the engine is not run).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const [projectRoot] = process.argv.slice(2);
const schema = join(projectRoot, 'prisma', 'schema.prisma');
if (!existsSync(schema)) {
  console.error(`no Prisma schema at ${schema}`);
  process.exit(1);
}
execFileSync('prisma', ['generate', '--schema', schema], {
  stdio: ['ignore', 'ignore', 'inherit'],
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  },
});
