import { getCount, postWebhook, type Exchange } from './exchange';
import { checkedOptions, type CheckedOptions, type ReceiverCheckOptions } from './options';
import { anotherSecret, signedRequest, testEvent } from './test-event';

export interface ReceiverCheckLine {
  name: 'answers-2xx-in-time' | 'refuses-bad-signature' | 'refuses-stale-timestamp' | 'handles-duplicate-once';
  ok: boolean;
  detail: string;
}

export interface ReceiverCheckResult {
  ok: boolean;
  lines: ReceiverCheckLine[];
}

/** Twice Standard Webhooks' tolerance of 5 minutes (docs/webhooks.md, "Verifying the signature"): stale by any reading of it. */
const STALE_BY_MS = 10 * 60_000;

/**
 * Sends a receiver the test events docs/webhooks.md, "Checking your receiver", describes, one after
 * the other, and says for each what a receiver must do and whether this one did. Throws
 * ReceiverCheckOptionsError (before sending anything) for a missing or malformed option; otherwise
 * every way the receiver answers, or does not, is a line.
 */
export async function checkReceiver(options: ReceiverCheckOptions): Promise<ReceiverCheckResult> {
  const checked = checkedOptions(options);
  const answers = await answersInTime(checked);
  const lines = [
    answers,
    await refusesBadSignature(checked, answers.ok),
    await refusesStaleTimestamp(checked, answers.ok),
    await handlesDuplicateOnce(checked),
  ];
  return { ok: lines.every((line) => line.ok), lines };
}

/** A fresh test event signed with `secret` at `attemptTime`, POSTed to the receiver. */
function sendEvent(options: CheckedOptions, secret: string, attemptTime: Date): Promise<Exchange> {
  const event = testEvent(attemptTime);
  return postWebhook(options, options.url, signedRequest(event.id, JSON.stringify(event), secret, attemptTime));
}

const is2xx = (exchange: Exchange) => exchange.kind === 'answered' && exchange.status >= 200 && exchange.status < 300;
const statusOf = (exchange: Exchange) => (exchange.kind === 'answered' ? `answered ${exchange.status}` : exchange.error);

async function answersInTime(options: CheckedOptions): Promise<ReceiverCheckLine> {
  const name = 'answers-2xx-in-time';
  const answer = await sendEvent(options, options.secret, new Date());
  if (answer.kind === 'no-answer') {
    return { name, ok: false, detail: `${answer.error}; a webhook must be answered 2xx within ${options.timeoutMs} ms, else it failed and is sent again` };
  }
  if (is2xx(answer)) return { name, ok: true, detail: `${answer.status} in ${answer.ms} ms` };
  const why =
    answer.status >= 300 && answer.status < 400
      ? 'redirects are not followed: the receiver must answer 2xx at this address'
      : 'a correctly signed webhook must be answered 2xx (does the receiver verify with this secret, over the raw body?)';
  return { name, ok: false, detail: `answered ${answer.status} in ${answer.ms} ms; ${why}` };
}

async function refusesBadSignature(options: CheckedOptions, acceptsGood: boolean): Promise<ReceiverCheckLine> {
  const answer = await sendEvent(options, anotherSecret(), new Date());
  return refusal('refuses-bad-signature', answer, acceptsGood, 'a receiver must refuse a webhook whose signature does not verify (4xx): anyone could send it');
}

async function refusesStaleTimestamp(options: CheckedOptions, acceptsGood: boolean): Promise<ReceiverCheckLine> {
  const answer = await sendEvent(options, options.secret, new Date(Date.now() - STALE_BY_MS));
  return refusal(
    'refuses-stale-timestamp',
    answer,
    acceptsGood,
    'a receiver must refuse a webhook-timestamp more than 5 minutes off (4xx): a recorded webhook could be replayed',
    ' to a webhook-timestamp 10 minutes old',
  );
}

/** Refused means answered, and not with a 2xx: no answer is no refusal (a receiver that is down refuses nothing). */
function refusal(name: ReceiverCheckLine['name'], answer: Exchange, acceptsGood: boolean, rule: string, what = ''): ReceiverCheckLine {
  if (answer.kind === 'no-answer') return { name, ok: false, detail: `${answer.error}; ${rule}` };
  if (is2xx(answer)) return { name, ok: false, detail: `answered ${answer.status}${what}; ${rule}` };
  const plainer = answer.status >= 400 && answer.status < 500 ? '' : ' (refused; a 4xx says why more plainly)';
  // A receiver that refuses everything passes this line too: say so, lest it read as praise.
  const caveat = acceptsGood ? '' : '; but it did not accept the correctly signed webhook either, so this shows little';
  return { name, ok: true, detail: `answered ${answer.status}${plainer}${caveat}` };
}

/**
 * Deliveries are at least once (docs/webhooks.md, "Delivery"): the same event, by webhook-id, may
 * come again, each time freshly signed. Both sends must be acknowledged (a refused duplicate is sent
 * again), and the event handled once, which only the receiver's own count can show.
 */
async function handlesDuplicateOnce(options: CheckedOptions): Promise<ReceiverCheckLine> {
  const name = 'handles-duplicate-once';
  const before = options.countUrl === undefined ? undefined : await readCount(options, options.countUrl);
  if (typeof before === 'string') return { name, ok: false, detail: `could not read the receiver's count before the sends: ${before}` };
  const event = testEvent(new Date());
  const body = JSON.stringify(event);
  const first = await postWebhook(options, options.url, signedRequest(event.id, body, options.secret, new Date()));
  if (!is2xx(first)) return { name, ok: false, detail: `the first send ${statusOf(first)}; a correctly signed webhook must be answered 2xx` };
  const second = await postWebhook(options, options.url, signedRequest(event.id, body, options.secret, new Date()));
  if (!is2xx(second)) {
    return { name, ok: false, detail: `the duplicate ${statusOf(second)}; a receiver must acknowledge a duplicate with 2xx, else it is sent again` };
  }
  const answers = `both sends answered 2xx (${[first, second].map((send) => (send.kind === 'answered' ? send.status : '')).join(', ')})`;
  if (options.countUrl === undefined || before === undefined) {
    return { name, ok: true, detail: `${answers}; without a count URL only the answers could be checked, not that the event was handled once` };
  }
  const after = await readCount(options, options.countUrl);
  if (typeof after === 'string') return { name, ok: false, detail: `${answers}; could not read the receiver's count after them: ${after}` };
  const rise = after - before;
  if (rise === 1) return { name, ok: true, detail: `${answers}; the count rose by 1 (from ${before} to ${after})` };
  const why =
    rise === 0 ? 'the event was not handled, or not yet counted when it was answered' : 'a receiver must handle an event once, deduplicating by webhook-id';
  return { name, ok: false, detail: `${answers}; the count rose by ${rise} (from ${before} to ${after}), expected 1: ${why}` };
}

/** The receiver's count of handled events, or why it could not be read. */
async function readCount(options: CheckedOptions, countUrl: string): Promise<number | string> {
  const answer = await getCount(options, countUrl);
  if (answer.kind === 'no-answer') return answer.error;
  if (!is2xx(answer)) return `answered ${answer.status}`;
  let value: unknown;
  try {
    value = JSON.parse(answer.body);
  } catch {
    value = undefined;
  }
  const count = typeof value === 'object' && value !== null && 'count' in value ? value.count : value;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) {
    return 'its answer is not a whole number: expected a JSON number, {"count": n} or a plain-text number';
  }
  return count;
}
