import type { Coding } from '@medplum/fhirtypes';
import { resolveDepartment, SPECIALTIES, specialtiesOfDepartment } from './specialties';
import { DEFAULT_PROFILE_BASE, DEPARTMENT_KEY_SYSTEM, fhirSystems } from './systems';

const { specialtySystem } = fhirSystems(DEFAULT_PROFILE_BASE);
const specialty = (code: string): Coding => ({ system: specialtySystem, code, display: code });
const department = (code: string): Coding => ({ system: DEPARTMENT_KEY_SYSTEM, code, display: `department ${code}` });
const resolve = (...coding: Coding[]) => resolveDepartment({ coding });

describe('resolveDepartment', () => {
  it('holds the 23 rows of the spec table', () => {
    expect(SPECIALTIES).toHaveLength(23);
    expect(new Set(SPECIALTIES.map((row) => row.code)).size).toBe(23);
  });

  it.each(SPECIALTIES.map((row) => [row.code, row.department] as const))('maps the specialty %s to department %s', (code, departmentCode) => {
    expect(resolve(specialty(code))).toEqual({
      departmentCode,
      specialty: expect.objectContaining({ code }),
      source: 'specialty',
    });
  });

  it.each(SPECIALTIES.map((row) => [row.code, row.department] as const))(
    'keeps %s (%s) when its own department key is given too, in either order',
    (code, departmentCode) => {
      expect(resolve(specialty(code), department(departmentCode))?.departmentCode).toBe(departmentCode);
      expect(resolve(department(departmentCode), specialty(code))?.departmentCode).toBe(departmentCode);
    },
  );

  it.each([
    ['orthopedics', '0300', '2300'],
    ['cardiology', '2300', '0300'],
    ['neuro-phase-b', '2800', '2852'],
    ['psychosomatic', '9999', '3100'],
  ])('lets the specialty %s win over the contradicting department key %s', (code, departmentCode, expected) => {
    expect(resolve(specialty(code), department(departmentCode))).toMatchObject({ departmentCode: expected, source: 'specialty' });
    expect(resolve(department(departmentCode), specialty(code))).toMatchObject({ departmentCode: expected, source: 'specialty' });
  });

  it('uses the department key when no specialty is given, with its specialty when that is unambiguous', () => {
    expect(resolve(department('2300'))).toEqual({
      departmentCode: '2300',
      specialty: expect.objectContaining({ code: 'orthopedics' }),
      source: 'department-key',
    });
  });

  it('leaves the specialty open for a department key shared by several specialties (2800) or by none', () => {
    expect(specialtiesOfDepartment('2800').map((row) => row.code)).toEqual(['neuro-phase-d', 'neurology']);
    expect(resolve(department('2800'))).toEqual({ departmentCode: '2800', specialty: undefined, source: 'department-key' });
    expect(resolve(department('1500'))).toEqual({ departmentCode: '1500', specialty: undefined, source: 'department-key' });
  });

  it('gives the same answer for every order of the codings', () => {
    const codings = [department('0300'), { system: 'http://snomed.info/sct', code: '394801008' }, specialty('orthopedics')];
    const orders = [
      [0, 1, 2],
      [0, 2, 1],
      [1, 0, 2],
      [1, 2, 0],
      [2, 0, 1],
      [2, 1, 0],
    ];
    const results = orders.map((order) => resolve(...order.map((index) => codings[index]!)));
    expect(new Set(results.map((result) => JSON.stringify(result))).size).toBe(1);
    expect(results[0]?.departmentCode).toBe('2300');
  });

  it('falls back to the department key when the specialty code is unknown', () => {
    expect(resolve(specialty('surgery'), department('1500'))).toMatchObject({ departmentCode: '1500', source: 'department-key' });
  });

  it.each([
    ['no performerType', undefined],
    ['no codings', { coding: [] }],
    ['codings of other systems only', { coding: [{ system: 'http://snomed.info/sct', code: '394801008' }] }],
    ['two different specialties', { coding: [specialty('cardiology'), specialty('urology')] }],
    ['two different department keys', { coding: [department('0300'), department('2200')] }],
    ['a malformed department key', { coding: [department('23')] }],
  ])('resolves nothing for %s', (_, performerType) => {
    expect(resolveDepartment(performerType)).toBeUndefined();
  });

  it('reads the specialty system of the configured profile base', () => {
    const other = fhirSystems('https://profiles.example.net');
    const performerType = { coding: [{ system: other.specialtySystem, code: 'urology' }, department('2300')] };
    expect(resolveDepartment(performerType, 'https://profiles.example.net')?.departmentCode).toBe('2200');
    expect(resolveDepartment(performerType)?.departmentCode).toBe('2300');
  });
});
