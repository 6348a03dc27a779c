// A stack in the foreground of a terminal, as `npm start` and `npm run sandbox` run it: the six
// services as processes on their configured ports, with one readable, prefixed log stream. A
// service that dies is started again after a back-off (supervisor.ts), with one line saying so,
// while the others keep answering; Ctrl-C (or SIGTERM) stops what the caller started beside the
// stack, then the services gracefully, the gateway and the web app first, and waits for them.
import { prettyFactory } from 'pino-pretty';
import { Stack } from './launcher';
import { SERVICES } from './services';
import { Supervisor } from './supervisor';
import table from './services.json';

const env = process.env;
const useColor = process.stdout.isTTY && !env.NO_COLOR;
export const paint = (color: number, text: string) => (useColor ? `\x1b[${color}m${text}\x1b[0m` : text);
const colors = new Map(table.services.map((service) => [service.name, service.color]));
const pretty = prettyFactory({ colorize: useColor, ignore: 'pid,hostname,service', translateTime: 'HH:MM:ss.l', singleLine: true });

/** Each line of a service (or of a helper beside the stack: `clinics`), its JSON made readable, after its name. */
export function printLine(instance: string, line: string): void {
  const prefix = paint(colors.get(instance) ?? 0, `[${instance}]`.padEnd(11));
  process.stdout.write(`${prefix}${line.startsWith('{') ? pretty(line).trimEnd() : line}\n`);
}

/** The launcher's own lines, after its name in bold (`[start]`, `[sandbox]`), aligned with the services'. */
export function sayAs(label: string): (text: string) => void {
  const prefix = `[${label}]`;
  return (text) => console.log(`${paint(1, prefix)}${' '.repeat(Math.max(11 - prefix.length, 1))}${text}`);
}

export interface ForegroundOptions {
  /** The launcher's name in its lines. */
  readonly label: string;
  /** The services' environment on top of this process's (Stack.launch's `env`). */
  readonly env?: Record<string, string>;
  /**
   * Once every service is ready: what the caller starts beside the stack and prints. Resolves with
   * how to stop it, which Ctrl-C does before it stops the services; a rejection stops the services
   * and ends the launcher with its message.
   */
  readonly onReady: (stack: Stack, say: (text: string) => void) => Promise<(() => Promise<void>) | void>;
}

/** Launches the stack and keeps it running until Ctrl-C or SIGTERM; exits the process then (0) or when it cannot start (1). */
export async function runInForeground(options: ForegroundOptions): Promise<void> {
  const say = sayAs(options.label);
  say(`starting ${SERVICES.join(', ')}...`);
  // A service that waits in vain for another gives up after STARTUP_TIMEOUT_MS (default 60 s) with
  // one line saying what it waited for; this waits a little longer, so that line comes first.
  const readyTimeoutMs = Number(env.STARTUP_TIMEOUT_MS ?? 60_000) + 15_000;
  let stack: Stack;
  try {
    stack = await Stack.launch({
      mode: 'processes',
      isolate: false,
      ports: 'configured',
      output: printLine,
      ownProcessGroup: true,
      readyTimeoutMs,
      ...(options.env ? { env: options.env } : {}),
    });
  } catch (error) {
    say(`${messageOf(error)}: the services were stopped`);
    process.exit(1);
  }
  const supervisor = new Supervisor(stack, say);
  for (const instance of stack.instances()) supervisor.watch(instance.name);
  let stopBeside: (() => Promise<void>) | undefined;
  let stopping = false;
  const stopAll = (reason: string, code = 0) => {
    if (stopping) return;
    stopping = true;
    supervisor.stop();
    say(`${reason}: stopping the services...`);
    void Promise.resolve(stopBeside?.())
      .catch(() => undefined)
      .then(() => stack.stop())
      .then(() => {
        say('stopped');
        process.exit(code);
      });
  };
  process.on('SIGINT', () => stopAll('Ctrl-C'));
  process.on('SIGTERM', () => stopAll('SIGTERM'));
  try {
    const stop = await options.onReady(stack, say);
    if (stop) stopBeside = stop;
  } catch (error) {
    stopAll(messageOf(error), 1);
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
