import { request as httpRequest } from 'node:http';

/** What the limits' tests read of an answer. */
export interface Answer {
  status: number;
  retryAfter: string | undefined;
  contentType: string | undefined;
  body: string;
}

/**
 * A request on a connection of its own, from the local address `from` (any of 127.0.0.0/8, so that
 * one machine has as many clients as a test needs).
 */
export function send(base: string, from: string, path: string, options: { method: string; headers: Record<string, string>; body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${path}`,
      { method: options.method, agent: false, localAddress: from, headers: { connection: 'close', ...options.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'],
            contentType: res.headers['content-type'],
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Requests by `next` until one is refused (429), at most `most`: every answer, the refusal last. */
export async function spend(next: () => Promise<Answer>, most: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  while (answers.length < most) {
    const answer = await next();
    answers.push(answer);
    if (answer.status === 429) return answers;
  }
  throw new Error(`no 429 in ${most} requests: ${answers.map((answer) => answer.status).join(', ')}`);
}

/**
 * Spends a budget, probes, and checks that the budget was still spent after the probes: then the
 * probes ran within the window of the refusal. A busy machine can take longer than the window's
 * second between the refusal and a probe, and such a run proves nothing either way; it is repeated
 * in a window of its own, at most five times.
 */
export async function withinOneWindow<T>(
  spent: () => Promise<Answer[]>,
  probes: () => Promise<T>,
  stillSpent: () => Promise<boolean>,
): Promise<{ spent: Answer[]; after: T }> {
  for (let run = 1; run <= 5; run++) {
    const answers = await spent();
    const after = await probes();
    if (await stillSpent()) return { spent: answers, after };
    await new Promise((resolve) => setTimeout(resolve, 1_100));
  }
  throw new Error('five runs, each slower than the window of a second');
}

/** The status of each answer, by name. */
export const statuses = <T extends Record<string, Answer>>(answers: T) =>
  Object.fromEntries(Object.entries(answers).map(([name, answer]) => [name, answer.status])) as Record<keyof T, number>;
