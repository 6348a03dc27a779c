import { CommandLine, UsageError, command, option } from '@bedrequest/cli';
import { ReceiverCheckOptionsError, checkReceiver } from '@bedrequest/webhook-check';

/** What the command reads from the environment: the secret, so that it need not stand in shell history. */
export interface ReceiverCheckEnvironment {
  readonly WEBHOOK_SECRET?: string;
}

/** The flag (or variable) each option of checkReceiver comes from, for a usage error that names it. */
const FLAG_OF = { url: '--url', secret: '--secret (or WEBHOOK_SECRET)', timeoutMs: '--timeout-ms', countUrl: '--count-url' } as const;

/**
 * `npm run admin -- receiver check ...` (docs/webhooks.md, "Checking your receiver"): an integrator's
 * receiver, tried with signed test events before it goes live. Opens no database or broker
 * connection: the command never asks for services, so `never` is what it is given.
 */
export function receiverCli(environment: ReceiverCheckEnvironment): CommandLine<never> {
  return new CommandLine<never>({
    program: 'npm run admin --',
    group: 'receiver',
    summary:
      'Checks a webhook receiver with signed test events (no database needed). The secret comes from --secret or, kept out of shell history, WEBHOOK_SECRET. Exit code 0: every check holds; 1: one failed; 2: usage error.',
    commands: {
      check: command({
        summary:
          'sends the receiver a correctly signed event, one with a wrong signature, one 10 minutes old and a duplicate; prints one line per check (docs/webhooks.md, "Checking your receiver")',
        options: {
          url: option.string('<URL>'),
          secret: option.string('<whsec_...>').optional(),
          // Passed on as a number for checkReceiver to judge, the one place that knows its range.
          'timeout-ms': option.string('<ms>').optional(),
          'count-url': option.string('<URL>').optional(),
        },
        async run(values, { out }) {
          const secret = values.secret ?? (environment.WEBHOOK_SECRET?.trim() || undefined);
          if (secret === undefined) throw new UsageError('missing option --secret (or WEBHOOK_SECRET in the environment)');
          const result = await checkReceiver({
            url: values.url,
            secret,
            timeoutMs: values['timeout-ms'] === undefined ? undefined : Number(values['timeout-ms']),
            countUrl: values['count-url'],
          }).catch((error: unknown) => {
            if (error instanceof ReceiverCheckOptionsError) throw new UsageError(`${FLAG_OF[error.field]} ${error.problem}`);
            throw error;
          });
          for (const line of result.lines) out(`${line.ok ? 'ok  ' : 'FAIL'} ${line.name}: ${line.detail}`);
          const failed = result.lines.filter((line) => !line.ok).length;
          if (failed > 0) throw new Error(`${failed} of ${result.lines.length} checks failed: the receiver is not ready for webhooks`);
          out(`all ${result.lines.length} checks hold: the receiver is ready for webhooks`);
        },
      }),
    },
  });
}
