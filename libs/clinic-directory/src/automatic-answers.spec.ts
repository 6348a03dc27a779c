import { declineNote, declineReason, departmentLabel } from './automatic-answers';

describe('the decline rule of automatic answers', () => {
  it('declines for a clinic that is not registered, and for one that does not offer the department', () => {
    expect(declineReason(undefined, '2300')).toBe('not-participating');
    expect(declineReason({ departments: ['0300'] }, '2300')).toBe('department-not-offered');
    expect(declineReason({ departments: ['0300', '2300'] }, '2300')).toBeUndefined();
  });

  it('words the note in German with the clinic and the department', () => {
    expect(declineNote('department-not-offered', '510000001', { departmentCode: '2300', specialty: 'orthopedics' })).toBe(
      'Automatische Antwort: Die Klinik 510000001 bietet die Fachabteilung 2300 (orthopedics) nicht an.',
    );
    expect(declineNote('not-participating', '510000009', { departmentCode: '2300' })).toBe(
      'Automatische Antwort: Die Klinik 510000009 ist keine teilnehmende Klinik.',
    );
  });
});

describe('departmentLabel', () => {
  it('names the specialty a department key is listed under when the request gave the key alone', () => {
    expect(departmentLabel({ departmentCode: '2800' })).toBe('2800 (neurology)');
  });

  it('shows a department key outside the specialty table alone', () => {
    expect(departmentLabel({ departmentCode: '9999' })).toBe('9999');
  });
});
