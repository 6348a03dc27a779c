// What `npm run sandbox` runs once tools/sandbox.mjs has checked PostgreSQL, Redis and RabbitMQ and
// built everything (this file's bundle is dist/tools/stack/sandbox-main.cjs): the six services in
// the foreground (foreground.ts) in the sandbox's own namespace and ports, its demo parties, and its
// demo clinics answering by the rules file (docs/sandbox.md). `--reset` removes the sandbox instead.
import { writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { root } from './child-process';
import { removeKeptNamespace } from './environment';
import { paint, printLine, runInForeground, sayAs } from './foreground';
import type { Stack } from './launcher';
import { sandboxPassword } from './sandbox/clinic-agent';
import { ClinicAgents } from './sandbox/clinic-agents';
import { sandboxSettings, type SandboxSettings } from './sandbox/environment';
import { registerClinics, registerReferrer, type SandboxReferrer } from './sandbox/parties';
import { readRules, type SandboxClinic } from './sandbox/rules';

const say = sayAs('sandbox');
const shown = (path: string) => (path.startsWith(`${root}/`) ? relative(root, path) : path);

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const unknown = args.filter((arg) => arg !== '--reset');
  if (unknown.length > 0) return fail(`unknown option ${unknown[0]} (npm run sandbox takes --reset alone)`);
  let settings: SandboxSettings;
  try {
    settings = sandboxSettings(process.env);
  } catch (error) {
    return fail((error as Error).message);
  }
  if (args.includes('--reset')) return reset(settings);
  // A rules file with a problem is said before anything starts.
  const reading = await readRules(settings.rulesFile);
  if ('problem' in reading) return fail(`${shown(settings.rulesFile)}: ${reading.problem}; nothing was started`);
  await runInForeground({
    label: 'sandbox',
    env: settings.env,
    onReady: async (stack, say) => {
      say('registering the demo parties...');
      const [referrer, agents] = await Promise.all([
        registerReferrer(stack, settings.directory),
        ClinicAgents.start({
          gatewayUrl: stack.gatewayUrl,
          rulesFile: settings.rulesFile,
          rulesFileName: shown(settings.rulesFile),
          register: (clinics) => registerClinics(stack, clinics),
          log: (line) => printLine('clinics', line),
        }),
      ]);
      writeClientFile(settings, referrer);
      printReady(stack, settings, referrer, agents.clinics, say);
      return () => agents.stop();
    },
  });
}

/**
 * The SMART client as a file beside its key pair, for an integrator's scripts to read instead of the
 * printed lines (docs/integration.md): its id, the key's kid and the token endpoint.
 */
function writeClientFile(settings: SandboxSettings, referrer: SandboxReferrer): void {
  const { client } = referrer;
  const description = {
    clientId: client.id,
    kid: client.kid,
    algorithm: 'RS384',
    tokenEndpoint: `${settings.apiUrl}/api/v1/token/oauth2`,
    privateKeyFile: client.privateKeyFile,
    jwksFile: client.jwksFile,
  };
  writeFileSync(join(settings.directory, 'referrer-client.json'), `${JSON.stringify(description, null, 2)}\n`);
}

/** What an integrator needs to begin: addresses, logins, the SMART client, and where the rules are. */
function printReady(stack: Stack, settings: SandboxSettings, referrer: SandboxReferrer, clinics: readonly SandboxClinic[], say: (text: string) => void): void {
  say(paint(1, `The sandbox is ready at ${stack.gatewayUrl} (every answer carries Bedrequest-Environment: sandbox)`));
  say(`  API            ${stack.gatewayUrl}   FHIR base ${stack.gatewayUrl}/api/v2/fhir   OpenAPI ${stack.gatewayUrl}/api/openapi.json`);
  say(`  web app        ${stack.webUrl}/inbox/`);
  say(`  referrer       username ${referrer.username}   password ${referrer.password}   (POST ${stack.gatewayUrl}/api/v1/token/login)`);
  say(`  SMART client   client id ${referrer.client.id}   RS384, kid ${referrer.client.kid}`);
  say(
    `  private key    ${shown(referrer.client.privateKeyFile)}   (public JWKS ${shown(referrer.client.jwksFile)}; client id and kid in ${shown(join(settings.directory, 'referrer-client.json'))})`,
  );
  say(`  token endpoint ${settings.apiUrl}/api/v1/token/oauth2`);
  say(`  rules file     ${shown(settings.rulesFile)}   (reloaded when it changes; docs/sandbox.md)`);
  for (const clinic of clinics) {
    say(
      `  clinic ${clinic.ik} ${clinic.name}: ${clinic.about ?? `${clinic.rules.length} rules`}   (login ${clinic.username} / ${sandboxPassword(clinic.username)})`,
    );
  }
  say(`Ctrl-C stops the sandbox; its data stays until npm run sandbox -- --reset`);
}

/** Removes the sandbox's schemas, broker objects, principals and Redis keys; its key pair stays (the client is registered anew). */
async function reset(settings: SandboxSettings): Promise<void> {
  const running = await fetch(`${settings.apiUrl}/api/v1/token/status`, { signal: AbortSignal.timeout(2_000) }).then(
    () => true,
    () => false,
  );
  if (running) return fail(`a sandbox answers at ${settings.apiUrl}: stop it first (Ctrl-C), then reset`);
  say(`removing the sandbox "${settings.namespace}": its schemas, broker objects, users and Redis keys...`);
  await removeKeptNamespace({ ...process.env, ...settings.env });
  say(`removed; npm run sandbox starts it afresh (the key pair in ${shown(settings.directory)} stays, under a new client id)`);
}

function fail(line: string): void {
  say(line);
  process.exit(1);
}

void main();
