import { randomUUID } from 'node:crypto';
import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { CLINIC, FaultFixture } from './support/fault-fixture';
import { byStatus, reportFigures, seconds } from './support/figures';
import { bundleSource, type Referrer } from './support/load';

/**
 * Fuzzing with cases that cost resources rather than break rules, while another referrer POSTs a
 * bundle every 50 ms (docs/api.md, "Sending a bundle"; the bounds are apps/gateway/src/json-body.ts's
 * JSON_SHAPE_LIMITS and the FHIR guard's, libs/fhir-model):
 * - deep nesting: a bundle whose extension nests 34 to 100,006 levels, and bare JSON nested 100,000
 *   and 1,000,000 levels (2 MB). Nesting beyond 64 levels is refused before it is parsed, 33 to 64
 *   by the FHIR guard with the element's path;
 * - huge counts: performers, entries, identifiers, codings, keys and a string over their bounds, one
 *   bundle of 12 MB. A body with more than 1,000 items or keys in one array or object is refused
 *   before it is parsed, one over 10 MiB (413) before it is read whole; 100 objects of 1,000 keys
 *   each are parsed and refused by the FHIR checks;
 * - many versions: a request and 79 supplements of it, four at a time: intake keeps 50 versions
 *   (REQUEST_MAX_VERSIONS) and refuses the rest 409 too-long; its revocation is still taken.
 *
 * Proved: every case is answered, with the status of its bound; the work each costs is bounded, as
 * the answers show rather than the clock: each case over a shape bound is refused with the shape
 * check's own issue (before parsing: the body was never parsed), each case within them by the FHIR
 * checks with the element's path; exactly 51 versions are stored; the other referrer gets 202 for
 * every bundle, each stored, and every service is ready afterwards. Each answer has HANG_MS, a bound
 * that only catches a hang; how long the slowest answer took, and the other referrer's p99, are
 * figures.
 *
 * The limits per party are lifted (the fault fixture's settings): the work each body costs is what
 * is looked at here; abuse at the limits is abuse.faults.spec.ts.
 */
/**
 * The cases are sent at least ROUNDS times, and again until the other referrer had VICTIM_ANSWERS
 * answers meanwhile: on a fast, idle machine three rounds were over before it had sent 20 bundles,
 * too few for its p99 to mean anything.
 */
const ROUNDS = 3;
const VICTIM_ANSWERS = 40;
/** Each answer's bound, the other referrer's too: only a hang takes this long (the slowest answer is a figure). */
const HANG_MS = 30_000;
const VERSIONS_KEPT = 50;
const SUPPLEMENTS = 79;

/** Which check refuses a case: the shape check before parsing (json-body.ts), the body limit (413), or the FHIR checks once parsed. */
type Refusal = 'before parsing' | 'too large' | 'FHIR checks';
/** The shape check's own issues (json-body.ts, shapeRefusal). */
const SHAPE_REFUSAL = /^the body (is nested deeper than|has an array or object of more than) /;

interface Tried {
  kind: 'deep nesting' | 'huge counts' | 'many versions';
  what: string;
  /** Of a deep-nesting or huge-count case: the check that must refuse it. */
  refusal?: Refusal;
  bytes: number;
  status: number;
  ms: number;
  issueCode?: string;
  diagnostics?: string;
  expression?: string;
}

describe('resource fuzzing: the service stays responsive and the other referrer is served', () => {
  let faults: FaultFixture;

  beforeAll(async () => {
    faults = await FaultFixture.start('resources');
  }, 180_000);
  afterAll(() => faults?.stop(), 60_000);

  it('refuses deep nesting and huge counts by the check of their bound (the deepest and largest before parsing) and versions over the limit with 409, while another referrer gets a 202 for every bundle', async () => {
    const victim = { username: 'fuzz-victim', password: 'fuzz-victim-password', ik: '269900003', fhirBase: 'https://fuzz-victim.example/fhir' };
    await faults.createReferrer(victim);
    const victimToken = (await faults.login(victim.username, victim.password)).token;
    const victimBundles = bundleSource(victim, [CLINIC.ik]);
    const tried: Tried[] = [];
    const victimPosts: { identifier: string; status: number; ms: number }[] = [];
    let fuzzing = true;
    let versioned: { requestIdentifier: string; tried: Tried[] } | undefined;
    // Made before the other referrer starts: making them (megabytes of JSON) would hold this
    // process's event loop, and the other referrer's times with it.
    const cases = resourceCases(faults.referrer).map(([kind, what, refusal, body]) => ({ kind, what, refusal, text: body() }));

    const victimLoop = async () => {
      while (fuzzing) {
        const { identifier, body } = victimBundles.next();
        const { status, ms } = await post(faults.gatewayUrl, victimToken, body, HANG_MS);
        victimPosts.push({ identifier, status, ms });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const started = Date.now();
    const fuzzCases = async () => {
      try {
        for (let round = 0; round < ROUNDS || victimPosts.length < VICTIM_ANSWERS; round++) {
          for (const { kind, what, refusal, text } of cases) {
            tried.push({ kind, what, refusal, bytes: Buffer.byteLength(text), ...(await post(faults.gatewayUrl, faults.referrer.token, text, HANG_MS)) });
          }
        }
        versioned = await manyVersions(faults.gatewayUrl, faults.referrer);
        tried.push(...versioned.tried);
      } finally {
        fuzzing = false;
      }
    };
    await Promise.all([victimLoop(), fuzzCases()]);
    const elapsed = Date.now() - started;

    const versionsOf = async (identifier: string) =>
      (
        await faults.pool.query<{ versions: number }>(
          `SELECT count(*)::int AS versions FROM "${faults.schema('intake')}".request_version v
             JOIN "${faults.schema('intake')}".admission_request r ON r.id = v.request_id WHERE r.identifier = $1`,
          [identifier],
        )
      ).rows[0]?.versions ?? 0;
    await faults.drained();
    const storedVersions = await versionsOf(versioned!.requestIdentifier);
    const health = await faults.health();
    const settled = await faults.settleAccepted(
      victimPosts
        .filter((post) => post.status === 202)
        .map((post) => ({ identifier: post.identifier, status: 202, sentAt: 0, answeredAt: 0, retryAfter: null })),
      60_000,
    );

    const byKind = (kind: Tried['kind']) => tried.filter((entry) => entry.kind === kind);
    const slowest = [...tried].sort((a, b) => b.ms - a.ms)[0]!;
    const victimP99 = p99(victimPosts.map((post) => post.ms));
    reportFigures(
      'resource fuzzing',
      `${tried.length} cases in ${seconds(elapsed)}: deep nesting ${byKind('deep nesting').length} (${byStatus(byKind('deep nesting').map((entry) => entry.status))}), ` +
        `huge counts ${byKind('huge counts').length} (${byStatus(byKind('huge counts').map((entry) => entry.status))}), ` +
        `many versions ${byKind('many versions').length} (${byStatus(byKind('many versions').map((entry) => entry.status))}; ${storedVersions} versions stored); ` +
        `refused ${(['before parsing', 'too large', 'FHIR checks'] as const).map((by) => `${by} ${tried.filter((entry) => entry.refusal && refusedBy(entry) === by).length}`).join(', ')}; ` +
        `slowest answer ${slowest.ms.toFixed(0)} ms (${slowest.what}; a figure, the bound is ${seconds(HANG_MS)}); the other referrer: ${victimPosts.length} bundles (${byStatus(victimPosts.map((post) => post.status))}), ` +
        `p99 ${victimP99.toFixed(0)} ms, ${settled.missing.length} of its 202s not stored; services afterwards: ${Object.entries(health)
          .map(([name, status]) => `${name} ${status}`)
          .join(', ')}`,
    );

    // Every case answered (no answer within HANG_MS: status 0), with the status of its bound.
    const unexpected = tried.filter((entry) => !expectedStatuses(entry).includes(entry.status));
    expect(unexpected.map(({ what, status }) => `${what}: ${status}`)).toEqual([]);
    // Bounded work: refused by the check that was meant to refuse it.
    const otherwise = tried.filter((entry) => entry.refusal && refusedBy(entry) !== entry.refusal);
    expect([
      ...new Set(otherwise.map((entry) => `${entry.what}: ${refusedBy(entry)} (${entry.status} ${entry.diagnostics ?? ''}), not ${entry.refusal}`)),
    ]).toEqual([]);
    expect(byKind('many versions').filter((entry) => entry.status === 409 && entry.issueCode === 'too-long').length).toBeGreaterThan(0);
    expect(storedVersions).toBe(VERSIONS_KEPT + 1);
    expect(victimPosts.length).toBeGreaterThanOrEqual(VICTIM_ANSWERS);
    expect(byStatus(victimPosts.map((post) => post.status))).toBe(byStatus(victimPosts.map(() => 202)));
    expect(settled.missing).toEqual([]);
    expect(health).toEqual(Object.fromEntries(Object.keys(health).map((name) => [name, 200])));
  }, 300_000);
});

/** The statuses a case may get: 400 for what is over a bound (413 over 10 MiB), 202 or 409 too-long for a version. */
function expectedStatuses(entry: Tried): number[] {
  if (entry.kind === 'many versions') return entry.what.startsWith('supplement') ? [202, 409] : [202];
  return entry.bytes > 10 * 2 ** 20 ? [413] : [400];
}

/** Which check the answer shows refused the body: the shape check's own issue, 413, or a FHIR check's issue with the element's path. */
function refusedBy(entry: Tried): Refusal | 'nothing known' {
  if (entry.status === 413) return 'too large';
  if (entry.status !== 400) return 'nothing known';
  if (SHAPE_REFUSAL.test(entry.diagnostics ?? '')) return 'before parsing';
  return entry.expression ? 'FHIR checks' : 'nothing known';
}

type ResourceCase = [kind: Tried['kind'], what: string, refusal: Refusal, body: () => string];

/** The deep-nesting and huge-count cases, each a body made from a valid bundle of the referrer (or bare JSON); each round sends the same bodies. */
function resourceCases(referrer: Referrer): ResourceCase[] {
  const template = bundleSource(referrer, [CLINIC.ik]);
  type Resource = Record<string, unknown> & { resourceType: string };
  type Bundle = { entry: { fullUrl?: string; resource: Resource }[] };
  /** A new valid bundle, changed by `change`, as text; `marker` in it is replaced by `raw` (text JSON.stringify cannot write). */
  const mutated = (change: (bundle: Bundle, resource: (type: string) => Resource) => void, raw?: string) => () => {
    const bundle = JSON.parse(template.next().body) as Bundle;
    change(bundle, (type) => bundle.entry.find((entry) => entry.resource.resourceType === type)!.resource);
    const text = JSON.stringify(bundle);
    return raw === undefined ? text : text.replace(JSON.stringify(MARKER), raw);
  };
  /** Extensions nested `levels` levels below ServiceRequest.extension (an object in an array each two), 6 + `levels` in the bundle. */
  const nestedExtension = (levels: number) =>
    mutated(
      (_bundle, resource) => void (resource('ServiceRequest').extension = MARKER),
      `[${'{"url":"https://fuzz.example/e","extension":['.repeat(levels / 2)}{"url":"https://fuzz.example/e","valueString":"x"}${']}'.repeat(levels / 2)}]`,
    );
  const performers = (count: number) =>
    Array.from({ length: count }, (_, n) => ({ reference: `urn:uuid:00000000-0000-4000-8000-${String(n).padStart(12, '0')}` }));
  return [
    // 34 to 64 levels: the FHIR guard's refusal (32 levels), with the element's path; deeper: refused before parsing.
    ...[28, 40, 58, 60, 1_000, 100_000].map((levels): ResourceCase => [
      'deep nesting',
      `an extension ${(levels + 6).toLocaleString('en-US')} levels deep in the bundle`,
      levels + 6 > 64 ? 'before parsing' : 'FHIR checks',
      nestedExtension(levels),
    ]),
    ['deep nesting', 'bare JSON: arrays nested 100,000 levels', 'before parsing', () => `${'['.repeat(100_000)}1${']'.repeat(100_000)}`],
    ['deep nesting', 'bare JSON: objects nested 100,000 levels', 'before parsing', () => `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`],
    ['deep nesting', 'bare JSON: arrays nested 1,000,000 levels (2 MB)', 'before parsing', () => `${'['.repeat(1_000_000)}1${']'.repeat(1_000_000)}`],
    ['huge counts', '101 performers', 'FHIR checks', mutated((_bundle, resource) => void (resource('ServiceRequest').performer = performers(101)))],
    ['huge counts', '40,000 performers', 'before parsing', mutated((_bundle, resource) => void (resource('ServiceRequest').performer = performers(40_000)))],
    [
      'huge counts',
      '200,000 performers (12 MB)',
      'too large',
      mutated((_bundle, resource) => void (resource('ServiceRequest').performer = performers(200_000))),
    ],
    ['huge counts', '5,000 entries', 'before parsing', mutated((bundle) => void (bundle.entry = Array.from({ length: 5_000 }, () => bundle.entry[1]!)))],
    [
      'huge counts',
      '100,000 identifiers of the Patient',
      'before parsing',
      mutated(
        (_bundle, resource) => void (resource('Patient').identifier = Array.from({ length: 100_000 }, (_, n) => ({ system: 'urn:fuzz', value: String(n) }))),
      ),
    ],
    [
      'huge counts',
      '100,000 codings of the ServiceRequest code',
      'before parsing',
      mutated(
        (_bundle, resource) =>
          void (resource('ServiceRequest').code = { coding: Array.from({ length: 100_000 }, (_, n) => ({ system: 'urn:fuzz', code: String(n) })) }),
      ),
    ],
    [
      'huge counts',
      '100,000 unknown keys in the ServiceRequest',
      'before parsing',
      mutated((_bundle, resource) => Object.assign(resource('ServiceRequest'), Object.fromEntries(Array.from({ length: 100_000 }, (_, n) => [`fuzz${n}`, n])))),
    ],
    [
      'huge counts',
      '100 extensions of 1,000 unknown keys each',
      'FHIR checks',
      mutated(
        (_bundle, resource) =>
          void (resource('ServiceRequest').extension = Array.from({ length: 100 }, () => ({
            url: 'https://fuzz.example/e',
            ...Object.fromEntries(Array.from({ length: 999 }, (_, n) => [`fuzz${n}`, n])),
          }))),
      ),
    ],
    [
      'huge counts',
      'a note of 5,000,000 characters',
      'FHIR checks',
      mutated((_bundle, resource) => void (resource('ServiceRequest').note = [{ text: 'x'.repeat(5_000_000) }])),
    ],
  ];
}

const MARKER = '\u0001fuzz-marker\u0001';

/** A new request of the referrer, then SUPPLEMENTS supplements of it four at a time, then its revocation. */
async function manyVersions(gatewayUrl: string, referrer: Referrer): Promise<{ requestIdentifier: string; tried: Tried[] }> {
  const requestIdentifier = `${referrer.fhirBase}/ServiceRequest/${randomUUID()}`;
  const version = (notes: string[], status?: 'revoked') =>
    JSON.stringify(
      admissionRequestBundle({
        fhirBase: referrer.fhirBase,
        requesterIk: referrer.ik,
        performerIks: [CLINIC.ik],
        requestIdentifier,
        notes,
        ...(status ? { status } : {}),
      }),
    );
  const send = async (what: string, body: string): Promise<Tried> => ({
    kind: 'many versions',
    what,
    bytes: Buffer.byteLength(body),
    ...(await post(gatewayUrl, referrer.token, body, 30_000)),
  });
  const tried = [await send('new request', version(['Fassung 0']))];
  let next = 1;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next <= SUPPLEMENTS) {
        const n = next++;
        tried.push(await send(`supplement ${n}`, version([`Fassung ${n}`])));
      }
    }),
  );
  tried.push(await send('revocation', version(['Fassung 0'], 'revoked')));
  return { requestIdentifier, tried };
}

/** One POST of a bundle: its status (0 without an answer), how long it took, and the first issue's code, diagnostics and path. */
async function post(
  gatewayUrl: string,
  token: string,
  body: string,
  timeoutMs: number,
): Promise<{ status: number; ms: number; issueCode?: string; diagnostics?: string; expression?: string }> {
  const started = performance.now();
  try {
    const response = await fetch(`${gatewayUrl}/api/v2/fhir/Bundle`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/fhir+json' },
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const answer = (await response.json().catch(() => undefined)) as { issue?: { code?: string; diagnostics?: string; expression?: string[] }[] } | undefined;
    const { code: issueCode, diagnostics, expression: [expression] = [] } = answer?.issue?.[0] ?? {};
    return {
      status: response.status,
      ms: performance.now() - started,
      ...(issueCode ? { issueCode } : {}),
      ...(diagnostics ? { diagnostics } : {}),
      ...(expression ? { expression } : {}),
    };
  } catch {
    return { status: 0, ms: performance.now() - started };
  }
}

function p99(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? 0;
}
