// `npm run sandbox`: the whole stack in sandbox mode beside `npm start` (docs/sandbox.md): its own
// namespace and ports, its demo parties and demo clinics that answer by tools/sandbox/clinics.json.
// Checks and builds as `npm start` does (tools/prepare-stack.mjs), then hands over to the launcher's
// sandbox (tools/stack/src/sandbox-main.ts). `npm run sandbox -- --reset` removes the sandbox's data.
// Refuses to run with NODE_ENV=production: its passwords are public.
import { developmentByDefault, prepareStack, sayAs } from './prepare-stack.mjs';

const say = sayAs('sandbox');
if (process.env.NODE_ENV?.trim() === 'production') {
  say('the sandbox is for development and integration tests (its passwords are public); refusing with NODE_ENV=production');
  process.exit(1);
}
developmentByDefault();
await import(await prepareStack(say, 'sandbox-main.cjs'));
