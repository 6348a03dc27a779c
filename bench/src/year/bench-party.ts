// Who the bench is in the year's data (bench-stack.ts enrols it by the same username and IK): its
// referrer party and first person get fixed ids, so that `user upsert` of the bench's referrer finds
// them in a copy of the template and its seeded requests are its own. The clinics the bench enrols
// (512200001-3) are none of the year's (511000001…), so the bench's own figures start on clinics
// without a history.
import { FHIR_BASE, REFERRER_IK, bundleFactory } from '../bundles';
import type { BenchParty } from './seed-lifecycle';

export const BENCH_PARTY: BenchParty = {
  partyId: '00000000-0000-4000-8000-0000000be0c1',
  userId: '00000000-0000-4000-8000-0000000be0c2',
  ik: REFERRER_IK,
  fhirBase: FHIR_BASE,
  username: 'bench-referrer',
};

/** The bench's AdmissionRequestBundle (figure 1's), whose size and list summary every seeded version has. */
export function benchBundle(): unknown {
  // Its two accepting clinics (bench-stack.ts, CLINIC_ACCEPTING and CLINIC_ACCEPTING_2), named here without loading the stack.
  return JSON.parse(bundleFactory(['512200001', '512200002']).next().body) as unknown;
}
