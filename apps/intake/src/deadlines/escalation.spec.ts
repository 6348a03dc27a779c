import type { ClinicRecord, EscalationRule } from '@bedrequest/contracts';
import { clinicsToAsk, greatCircleKm, stillOpen } from './escalation';

const BERLIN = { latitude: 52.52, longitude: 13.405 };
const clinic = (ik: string, departments: string[], coordinates?: { latitude: number; longitude: number }): ClinicRecord => ({
  ik,
  name: ik,
  departments: departments.map((code) => ({ code, specialty: 'x', display: 'x' })),
  ...(coordinates ? { coordinates } : {}),
});
const rule = (overrides: Partial<EscalationRule> = {}): EscalationRule => ({
  whenOpenBelow: 2,
  askNext: 3,
  origin: { postalCode: '10178', ...BERLIN },
  ...overrides,
});

describe('asking by rule: which clinics', () => {
  it('measures Berlin to Munich as about 504 km along the great circle', () => {
    expect(greatCircleKm(BERLIN, { latitude: 48.137, longitude: 11.575 })).toBeCloseTo(504, -1);
    expect(greatCircleKm(BERLIN, BERLIN)).toBe(0);
  });

  it('counts as still open every clinic neither declined, cancelled nor overdue', () => {
    const tasks = [
      { clinicIk: 'a', status: 'requested', overdue: false },
      { clinicIk: 'b', status: 'requested', overdue: true },
      { clinicIk: 'c', status: 'accepted', overdue: false },
      { clinicIk: 'd', status: 'on-hold', overdue: false },
      { clinicIk: 'e', status: 'rejected', overdue: false },
      { clinicIk: 'f', status: 'cancelled', overdue: false },
    ] as const;
    expect(stillOpen(tasks)).toBe(3);
  });

  it("takes the party's list in its order, then the registry nearest first, clinics without coordinates last by IK, only with the department and not asked before", () => {
    const registry = [
      clinic('100000001', ['2300']),
      clinic('100000002', ['2300'], { latitude: 51.34, longitude: 12.375 }),
      clinic('100000003', ['2300'], { latitude: 52.39, longitude: 13.065 }),
      clinic('100000004', ['2800'], BERLIN),
      clinic('100000005', ['2300']),
      clinic('100000006', ['2300'], BERLIN),
      clinic('100000007', ['2300', '0300'], { latitude: 48.137, longitude: 11.575 }),
    ];
    const ask = (overrides: Partial<EscalationRule>, asked: string[] = []) =>
      clinicsToAsk({ rule: rule(overrides), departmentCode: '2300', registry, asked: new Set(asked) }).map(({ ik, source }) => `${ik}:${source}`);

    expect(ask({ askNext: 10 }, ['100000006'])).toEqual([
      '100000003:registry',
      '100000002:registry',
      '100000007:registry',
      '100000001:registry',
      '100000005:registry',
    ]);
    expect(ask({ askNext: 3, clinics: ['100000005', '100000004', '999999999', '100000007'] })).toEqual([
      '100000005:list',
      '100000007:list',
      '100000006:registry',
    ]);
    expect(ask({ askNext: 2, clinics: ['100000007'] }, ['100000007', '100000006', '100000003', '100000002', '100000001'])).toEqual(['100000005:registry']);
  });
});
