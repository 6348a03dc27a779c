import { CLINIC, type FaultFixture } from '../support/fault-fixture';
import { byStatus, reportFigures, seconds } from '../support/figures';
import { PLACEHOLDER, bundleSource } from '../support/load';
import { BundleMutator, type FuzzCase } from '../support/bundle-mutator';

/**
 * 10,000 fuzzed bundles (mutations of valid ones). Proved: only 4xx answers with an
 * OperationOutcome (or 202), no 5xx, every service still ready afterwards. A mutation can leave a bundle valid (a shuffled array, a duplicated Condition, an
 * unknown extension); it is then answered 202, and a 202 is a promise: the test also checks that
 * every bundle answered 202 was stored.
 */
const CASES = 10_000;
const CONCURRENCY = 16;

interface Answer {
  fuzz: FuzzCase;
  status: number;
  /** A 4xx body that is an OperationOutcome, as every error on /api/v2/fhir must be. */
  outcome: boolean;
  error?: string;
}

export async function fuzz(faults: FaultFixture): Promise<void> {
  const seed = Number(process.env.FAULTS_FUZZ_SEED ?? 7_000_007);
  const mutator = new BundleMutator(bundleSource(faults.referrer, [CLINIC.ik]).template, PLACEHOLDER, seed);
  const answers: Answer[] = [];
  let health: Record<string, number | 'exited'> = {};
  let notStored: Answer[] = [];
  let elapsed = 0;
  const examples = (list: readonly Answer[]) => list.slice(0, 10).map((answer) => `${answer.status} ${answer.error ?? ''} ← ${answer.fuzz.description}`);
  try {
    const started = Date.now();
    let sent = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (sent < CASES) {
          sent++;
          answers.push(await post(faults, mutator.next()));
        }
      }),
    );
    elapsed = Date.now() - started;
    health = await faults.health();

    const acceptedCases = answers.filter((answer) => answer.status === 202);
    // A NUL character cannot be a query parameter either: such an identifier is not stored by definition.
    const storable = acceptedCases.filter((answer) => answer.fuzz.identifier && !answer.fuzz.identifier.includes('\u0000'));
    const counts = await faults.settleAccepted(
      storable.map((answer) => ({ identifier: answer.fuzz.identifier!, status: 202, sentAt: 0, answeredAt: 0, retryAfter: null })),
      30_000,
    );
    notStored = acceptedCases.filter(
      (answer) => !answer.fuzz.identifier || answer.fuzz.identifier.includes('\u0000') || counts.missing.includes(answer.fuzz.identifier),
    );

    expect(answers).toHaveLength(CASES);
    expect(examples(answers.filter((answer) => answer.status >= 500 || answer.status === 0))).toEqual([]);
    expect(examples(answers.filter((answer) => answer.status !== 202 && (answer.status < 400 || answer.status >= 500)))).toEqual([]);
    expect(examples(answers.filter((answer) => answer.status >= 400 && !answer.outcome))).toEqual([]);
    expect(health).toEqual(Object.fromEntries(Object.keys(health).map((name) => [name, 200])));
    expect(examples(notStored)).toEqual([]);
  } finally {
    const serverErrors = answers.filter((answer) => answer.status >= 500).length;
    const unanswered = answers.filter((answer) => answer.status === 0).length;
    reportFigures(
      'fuzzing',
      `${answers.length} mutated bundles (seed ${seed}) in ${seconds(elapsed)}: ${byStatus(answers.map((answer) => answer.status))}; ${serverErrors} 5xx, ${unanswered} without a readable answer, ` +
        `${answers.filter((answer) => answer.status >= 400 && !answer.outcome).length} errors without an OperationOutcome, ` +
        `${notStored.length} answered 202 but not stored; services afterwards: ${Object.entries(health)
          .map(([name, status]) => `${name} ${status}`)
          .join(', ')}`,
    );
    const unreadable = answers.filter((answer) => answer.status === 0);
    if (notStored.length) reportFigures('fuzzing: answered 202 but not stored', `${traits(notStored)}; first ones: ${examples(notStored).join(' | ')}`);
    if (unreadable.length) reportFigures('fuzzing: without a readable answer', `${traits(unreadable)}; first ones: ${examples(unreadable).join(' | ')}`);
  }
}

async function post(faults: FaultFixture, fuzz: FuzzCase): Promise<Answer> {
  try {
    const response = await fetch(`${faults.gatewayUrl}/api/v2/fhir/Bundle`, {
      method: 'POST',
      headers: { authorization: `Bearer ${faults.referrer.token}`, 'content-type': fuzz.contentType },
      body: fuzz.body,
    });
    const text = await response.text();
    let outcome = false;
    try {
      outcome = (JSON.parse(text) as { resourceType?: string }).resourceType === 'OperationOutcome';
    } catch {
      // not JSON: not an OperationOutcome
    }
    return { fuzz, status: response.status, outcome };
  } catch (error) {
    return { fuzz, status: 0, outcome: false, error: String((error as Error).cause ?? error) };
  }
}

/** What the given cases carry that a valid bundle does not, counted: the lead to their cause. */
function traits(answers: readonly Answer[]): string {
  const counts = new Map<string, number>();
  const count = (trait: string) => counts.set(trait, (counts.get(trait) ?? 0) + 1);
  for (const { fuzz } of answers) {
    // The body is JSON text: NUL and unpaired surrogates appear escaped.
    if (fuzz.body.includes('\\u0000')) count('U+0000');
    // (A well-formed pair is written as is; JSON.stringify escapes only a surrogate without its partner.)
    if (/\\ud[89a-f][0-9a-f]{2}/i.test(fuzz.body)) count('an unpaired surrogate');
    if ((fuzz.identifier?.length ?? 0) > 2_000) count(`an identifier of ${Math.floor((fuzz.identifier?.length ?? 0) / 1000)},000+ characters`);
  }
  return `${answers.length} cases, carrying ${[...counts.entries()].map(([trait, n]) => `${trait} (${n})`).join(', ') || 'nothing unusual'}`;
}
