import { SPECIALTIES } from '@bedrequest/fhir-model';
import { InvalidClinicError, parseDepartments, parseIk } from './clinic-registry.service';
import { DEPARTMENTS } from '@bedrequest/clinic-directory';

describe('clinic registry input rules', () => {
  it('accepts a 9-digit IK number and refuses anything else', () => {
    expect(parseIk(' 510000001 ')).toBe('510000001');
    for (const malformed of ['51000000', '5100000011', '51000000a', '']) {
      expect(() => parseIk(malformed)).toThrow(InvalidClinicError);
    }
  });

  it('accepts department keys of the specialty table, without duplicates, in the given order', () => {
    expect(parseDepartments(['2300', '0300', '2300'])).toEqual(['2300', '0300']);
  });

  it('refuses an unknown department key and names it', () => {
    expect(() => parseDepartments(['2300', '9999'])).toThrow('unknown department key "9999"');
  });

  it('refuses an empty department list', () => {
    expect(() => parseDepartments(['', ' '])).toThrow(InvalidClinicError);
  });

  it('lists every department key of the specification once, 2800 under neurology', () => {
    expect(DEPARTMENTS.size).toBe(new Set(SPECIALTIES.map((specialty) => specialty.department)).size);
    expect(DEPARTMENTS.get('2800')?.code).toBe('neurology');
    expect(DEPARTMENTS.get('2300')).toEqual({ code: 'orthopedics', display: 'orthopaedics', department: '2300' });
  });
});
