// POSTs of admission requests through the gateway, every answer recorded with its timing, for the
// faults that need traffic while something breaks.
import { randomUUID } from 'node:crypto';
import type { AdmissionBundleSubmittedV1, Submitter } from '@bedrequest/contracts';
import { admissionRequestSummary, DEFAULT_PROFILE_BASE, validateAdmissionRequestBundle } from '@bedrequest/fhir-model';
import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { byStatus } from './figures';

export interface Referrer {
  fhirBase: string;
  ik: string;
  token: string;
  partyId: string;
}

/** Stands for the request's UUID in `bundleSource(...).template`. */
export const PLACEHOLDER = '00000000-0000-4000-8000-00000000fa17';

/**
 * A valid AdmissionRequestBundle of the referrer as a JSON template (the fixture of
 * @bedrequest/fhir-model/testing); `next()` gives it a new request identifier, so every POST
 * creates a new request.
 */
export function bundleSource(referrer: Pick<Referrer, 'fhirBase' | 'ik'>, performerIks: readonly string[]) {
  const template = JSON.stringify(
    admissionRequestBundle({
      fhirBase: referrer.fhirBase,
      requesterIk: referrer.ik,
      performerIks,
      requestIdentifier: `${referrer.fhirBase}/ServiceRequest/${PLACEHOLDER}`,
    }),
  );
  return {
    template,
    next(): { identifier: string; body: string } {
      const id = randomUUID();
      return { identifier: `${referrer.fhirBase}/ServiceRequest/${id}`, body: template.replaceAll(PLACEHOLDER, id) };
    },
  };
}
export type BundleSource = ReturnType<typeof bundleSource>;

/**
 * What the gateway publishes for a bundle of `bundleSource` (admission.bundle.submitted.v1): the
 * bundle and the summary it reads when it validates it, for the faults that publish straight to
 * intake's queue.
 */
export function admissionSubmission(submitter: Submitter, body: string): AdmissionBundleSubmittedV1 {
  const bundle = JSON.parse(body) as Record<string, unknown>;
  const validation = validateAdmissionRequestBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE });
  if (!validation.ok) throw new Error(`the bundle source made an invalid bundle: ${JSON.stringify(validation.issues)}`);
  return { submitter, receivedAt: new Date().toISOString(), bundle, request: admissionRequestSummary(validation.bundle) };
}

export interface PostRecord {
  identifier: string;
  sentAt: number;
  answeredAt: number;
  /** 0: no HTTP answer (connection refused or reset). */
  status: number;
  retryAfter: string | null;
  /**
   * For a 202: `processed` when intake's verdict came back in time, `queued` when the gateway
   * answered for a bundle it had only put on the queue (intake down or slow).
   */
  accepted?: 'processed' | 'queued';
  error?: string;
  /**
   * Of a POST of a BundleLoad: the load's `phase` when it was sent and when its answer came (see
   * `inPhase`).
   */
  phase?: { sent: string; answered: string };
}

/** One POST of a bundle, its answer recorded (never throws). */
export async function postBundle(gatewayUrl: string, token: string, bundle: { identifier: string; body: string }): Promise<PostRecord> {
  const sentAt = Date.now();
  try {
    const response = await fetch(`${gatewayUrl}/api/v2/fhir/Bundle`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/fhir+json' },
      body: bundle.body,
    });
    const text = await response.text();
    const record: PostRecord = {
      identifier: bundle.identifier,
      sentAt,
      answeredAt: Date.now(),
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
    };
    if (response.status === 202) record.accepted = text.includes('queued for processing') ? 'queued' : 'processed';
    return record;
  } catch (error) {
    return { identifier: bundle.identifier, sentAt, answeredAt: Date.now(), status: 0, retryAfter: null, error: String((error as Error).cause ?? error) };
  }
}

/**
 * `concurrency` workers POSTing new bundles back to back until `count` were sent or `stop()` is
 * called. `minIntervalMs` spaces each worker's POSTs, so that fast failures (503 while the broker
 * is down) do not turn into a flood.
 *
 * `phase` is what the fault is doing meanwhile ('before' until the test says otherwise): the test
 * sets it at each step (before a kill, once the process is gone, once it is ready again), and every
 * POST records the phase it was sent in and the one its answer came in. A POST belongs to a phase
 * only when both are that phase (`inPhase`): a POST sent before a kill and answered after it belongs
 * to neither side.
 */
export class BundleLoad {
  readonly posts: PostRecord[] = [];
  phase = 'before';
  private sent = 0;
  private stopped = false;
  private ended = false;
  private readonly workers: Promise<void>[] = [];

  constructor(
    private readonly options: { gatewayUrl: string; token: string; bundles: BundleSource; concurrency: number; count?: number; minIntervalMs?: number },
  ) {}

  start(): this {
    for (let worker = 0; worker < this.options.concurrency; worker++) this.workers.push(this.work());
    void Promise.all(this.workers).then(() => (this.ended = true));
    return this;
  }

  get answered(): number {
    return this.posts.length;
  }

  /** Resolves once every POST was answered (after `count`, or after `stop()`). */
  async finished(): Promise<PostRecord[]> {
    await Promise.all(this.workers);
    return this.posts;
  }

  async stop(): Promise<PostRecord[]> {
    this.stopped = true;
    return this.finished();
  }

  /**
   * Waits until `condition` holds of the POSTs answered so far. Rejects once the load has ended
   * without it (all of `count` answered, or stopped), or after `timeoutMs`, a bound that only
   * catches a hang; the message names `what` and the answers of the phase the load was in.
   */
  async until(condition: (posts: readonly PostRecord[]) => boolean, what: string, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (condition(this.posts)) return;
      const ended = this.ended;
      if (ended || Date.now() > deadline) {
        throw new Error(
          `${ended ? `the load ended (${this.posts.length} POSTs)` : `timed out after ${timeoutMs} ms`} waiting for ${what}; ` +
            `answers in phase "${this.phase}": ${byStatus(inPhase(this.posts, this.phase).map((post) => post.status)) || 'none'}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  private async work(): Promise<void> {
    const { count = Number.POSITIVE_INFINITY, minIntervalMs = 0 } = this.options;
    while (!this.stopped && this.sent < count) {
      this.sent++;
      const started = Date.now();
      const sentIn = this.phase;
      const record = await postBundle(this.options.gatewayUrl, this.options.token, this.options.bundles.next());
      record.phase = { sent: sentIn, answered: this.phase };
      this.posts.push(record);
      const rest = minIntervalMs - (Date.now() - started);
      if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    }
  }
}

/** The POSTs sent and answered while the load was in `phase` (BundleLoad.phase). */
export const inPhase = (posts: readonly PostRecord[], phase: string) => posts.filter((post) => post.phase?.sent === phase && post.phase.answered === phase);

export const accepted = (posts: readonly PostRecord[]) => posts.filter((post) => post.status === 202);
