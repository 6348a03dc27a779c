// What `npm start` runs once tools/start.mjs has checked PostgreSQL, Redis and RabbitMQ and built
// everything (this file's bundle is dist/tools/stack/main.cjs): the six services as processes on
// their configured ports, in the foreground, with one readable, prefixed log stream. Prints the
// addresses of the API and the clinic inbox once every service is ready. A service that dies is
// started again after a back-off (supervisor.ts), with one line saying so, while the others keep
// answering; Ctrl-C (or SIGTERM) stops them all gracefully, the gateway and the web app first, and
// waits for them.
import { prettyFactory } from 'pino-pretty';
import { Stack } from './launcher';
import { SERVICES } from './services';
import { Supervisor } from './supervisor';
import table from './services.json';

const env = process.env;
const useColor = process.stdout.isTTY && !env.NO_COLOR;
const paint = (color: number, text: string) => (useColor ? `\x1b[${color}m${text}\x1b[0m` : text);
const say = (text: string) => console.log(`${paint(1, '[start]')}    ${text}`);
const colors = new Map(table.services.map((service) => [service.name, service.color]));
const pretty = prettyFactory({ colorize: useColor, ignore: 'pid,hostname,service', translateTime: 'HH:MM:ss.l', singleLine: true });

/** Each line of a service, its JSON made readable, after its name. */
function printLine(instance: string, line: string): void {
  const prefix = paint(colors.get(instance) ?? 0, `[${instance}]`.padEnd(11));
  process.stdout.write(`${prefix}${line.startsWith('{') ? pretty(line).trimEnd() : line}\n`);
}

async function main(): Promise<void> {
  say(`starting ${SERVICES.join(', ')}...`);
  // A service that waits in vain for another gives up after STARTUP_TIMEOUT_MS (default 60 s) with
  // one line saying what it waited for; this waits a little longer, so that line comes first.
  const readyTimeoutMs = Number(env.STARTUP_TIMEOUT_MS ?? 60_000) + 15_000;
  let stack: Stack;
  try {
    stack = await Stack.launch({ mode: 'processes', isolate: false, ports: 'configured', output: printLine, ownProcessGroup: true, readyTimeoutMs });
  } catch (error) {
    say(`${error instanceof Error ? error.message : String(error)}: the services were stopped`);
    process.exit(1);
  }
  const supervisor = new Supervisor(stack, say);
  for (const instance of stack.instances()) supervisor.watch(instance.name);
  let stopping = false;
  const stopAll = (reason: string) => {
    if (stopping) return;
    stopping = true;
    supervisor.stop();
    say(`${reason}: stopping the services...`);
    void stack.stop().then(() => {
      say('stopped');
      process.exit(0);
    });
  };
  process.on('SIGINT', () => stopAll('Ctrl-C'));
  process.on('SIGTERM', () => stopAll('SIGTERM'));
  say(paint(1, `Bed Occupancy Request Service is ready at ${stack.gatewayUrl}`));
  say(paint(1, `The clinic inbox is at ${stack.webUrl}/inbox/`));
  say(`try: curl ${stack.gatewayUrl}/api/v1/token/status   (Ctrl-C stops everything)`);
}

void main();
