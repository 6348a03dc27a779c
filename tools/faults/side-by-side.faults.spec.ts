import { duplicateDelivery } from './scenarios/duplicate-delivery';
import { fuzz } from './scenarios/fuzz';
import { intakeKill } from './scenarios/intake-kill';
import { poisonMessage } from './scenarios/poison-message';
import { ssrf } from './scenarios/ssrf';
import { WEBHOOK_RETRY_SCHEDULE, webhookOutage } from './scenarios/webhook-outage';
import { FaultFixture } from './support/fault-fixture';

/**
 * The faults that disturb only processes and queues the test owns, none of the machine's shared
 * services: a webhook receiver, a killed intake of its own stack, messages on its own queues, a
 * production-mode notifier, hostile bundles; what each proves is said in its scenario's file
 * (scenarios/). They run side by side (it.concurrent), so that the two minutes the webhook receiver
 * must stay down do not add up with the rest; each one asserts only about its own requests, parties
 * and messages. The faults on PostgreSQL, Redis and RabbitMQ have files of their own, which jest
 * runs one at a time (maxWorkers 1).
 *
 * Two lanes: the webhook outage, which mostly waits, and all the others one after another (they
 * load two cores fully; at the same time they would only slow each other down and blur their
 * figures). Two stacks: the kill -9 fault has its own (its intake dies), the others share one.
 */

/** Runs each call's work after the work of every earlier call has finished. */
function lane() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(work: () => Promise<T>): Promise<T> => {
    const run = tail.then(work, work);
    tail = run.catch(() => undefined);
    return run;
  };
}

describe('faults on the test’s own processes, side by side', () => {
  const oneAtATime = lane();
  let shared: FaultFixture;
  let killable: FaultFixture | undefined;

  beforeAll(async () => {
    // Six database connections per pool: two stacks and the tests of other developers share
    // PostgreSQL's 100. One in-process try again per delivery: see poison-message.ts. Warnings
    // too (a lost connection, a failed handler), for a failure's message (explainingFailure).
    const logLevel = process.env.FAULTS_LOG_LEVEL ?? 'warn';
    const started = await Promise.allSettled([
      FaultFixture.start('side', {
        WEBHOOK_RETRY_SCHEDULE,
        INTAKE_VERDICT_TIMEOUT_MS: '2000',
        DATABASE_POOL_SIZE: '6',
        AMQP_HANDLER_RETRIES: '1',
        LOG_LEVEL: logLevel,
      }),
      FaultFixture.start('kill', { INTAKE_VERDICT_TIMEOUT_MS: '1000', DATABASE_POOL_SIZE: '6', LOG_LEVEL: logLevel }),
    ]);
    if (started[0].status === 'fulfilled') shared = started[0].value;
    if (started[1].status === 'fulfilled') killable = started[1].value;
    const failure = started.find((result) => result.status === 'rejected');
    if (failure) throw failure.reason;
  }, 180_000);

  afterAll(async () => {
    await Promise.all([shared?.stop(), killable?.stop()]);
  }, 60_000);

  /** A failure on the shared stack also says what state its services and queues were in then. */
  const onShared = (label: string, scenario: (stack: FaultFixture) => Promise<void>) => () => shared.explainingFailure(label, () => scenario(shared));

  it.concurrent('webhook receiver down for 2 minutes, then up: every event arrives, same ids, order per request', onShared('outage', webhookOutage));
  it.concurrent('kill -9 of intake during 5,000 POSTs: 202s before, while it is gone and once it is back, each stored exactly once, none lost', () =>
    oneAtATime(async () => {
      try {
        await killable!.explainingFailure('kill', () => intakeKill(killable!));
      } finally {
        // Its stack is not needed any more: its processes would only take memory and connections.
        const stack = killable;
        killable = undefined;
        await stack?.stop();
      }
    }),
  );
  it.concurrent('a poison message is dead-lettered after exactly the delivery limit while other traffic flows', () =>
    oneAtATime(onShared('poison', poisonMessage)),
  );
  it.concurrent('1,000 messages each delivered twice: exactly 1,000 stored versions and 1,000 clinic notifications', () =>
    oneAtATime(onShared('duplicates', duplicateDelivery)),
  );
  it.concurrent('SSRF in production mode: no connection reaches a loopback canary', () => oneAtATime(onShared('ssrf', ssrf)));
  it.concurrent('10,000 fuzzed bundles: only 4xx (or 202 and stored), no 5xx, every service still up', () => oneAtATime(onShared('fuzz', fuzz)));
});
