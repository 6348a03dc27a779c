// What a year of a national service leaves in its database, as numbers the seed's SQL reads
// (year-seed.ts). Pure: unit-tested in year-profile.spec.ts.

/** The schemas the seed fills, by service (the services' defaults, or a test's own). */
export interface YearSchemas {
  auth: string;
  intake: string;
  routing: string;
  notifier: string;
}

export const DEFAULT_SCHEMAS: YearSchemas = { auth: 'auth', intake: 'intake', routing: 'routing', notifier: 'notifier' };

/**
 * The counts of one seed. `scale` multiplies what a year brings (requests and everything that
 * follows from them); the population of parties and clinics does not grow with time and stays as a
 * year finds it, so that a small seed keeps the selectivity of a whole one (a clinic's share of the
 * Tasks, a party's share of the requests), which is what the planner weighs.
 */
export interface YearProfile {
  scale: number;
  /** Requests stored over the year, one every 31.5 s at scale 1. */
  requests: number;
  /** The bench referrer's share: its requests are `<bench FHIR base>/ServiceRequest/seed-<n>` for n = 1…benchRequests. */
  benchRequests: number;
  /** Other referrer parties (hospitals), each with its own FHIR base and IK. */
  referrerParties: number;
  /** Clinics of the registry, each a clinic party of auth. */
  clinics: number;
  /** People per party. */
  usersPerParty: number;
  /** Days of the year; the seed is written in chunks of `chunkDays`, each followed by its churn and a VACUUM. */
  days: number;
  chunkDays: number;
  /** A multiplier coprime with `requests`: request g (in the order stored) gets identifier number (g × it mod requests) + 1. */
  identifierStride: number;
}

/** Requests a year at scale 1: the "in the order of a million". */
export const REQUESTS_PER_YEAR = 1_000_000;

export function yearProfile(scale: number, benchShare = 0.1): YearProfile {
  if (!(scale > 0 && scale <= 10)) throw new Error(`scale must be in (0, 10], not ${scale}`);
  if (!(benchShare > 0 && benchShare <= 1)) throw new Error(`the bench referrer's share must be in (0, 1], not ${benchShare}`);
  const requests = Math.max(100, Math.round(REQUESTS_PER_YEAR * scale));
  return {
    scale,
    requests,
    benchRequests: Math.max(1, Math.round(requests * benchShare)),
    referrerParties: 1_000,
    clinics: 1_100,
    usersPerParty: 3,
    days: 365,
    chunkDays: 30,
    identifierStride: strideCoprimeWith(requests),
  };
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** A large prime-ish multiplier coprime with `n`, so that g ↦ (g × m mod n) + 1 is a permutation of 1…n. */
export function strideCoprimeWith(n: number): number {
  let candidate = 1_000_003;
  while (gcd(candidate, n) !== 1) candidate += 2;
  return candidate;
}

/** The identifier number of the g-th request stored (1-based): a permutation of 1…requests, so the bench's seed-<n> are spread over the year. */
export function identifierNumber(profile: Pick<YearProfile, 'requests' | 'identifierStride'>, g: number): number {
  return Number((BigInt(g) * BigInt(profile.identifierStride)) % BigInt(profile.requests)) + 1;
}

/** The chunks of the year, oldest first: [first day, day after the last) counted from the year's start. */
export function chunksOf(profile: Pick<YearProfile, 'days' | 'chunkDays'>): { fromDay: number; toDay: number }[] {
  const chunks: { fromDay: number; toDay: number }[] = [];
  for (let fromDay = 0; fromDay < profile.days; fromDay += profile.chunkDays) {
    chunks.push({ fromDay, toDay: Math.min(profile.days, fromDay + profile.chunkDays) });
  }
  return chunks;
}
