import { SPECIALTIES } from '@bedrequest/fhir-model';
import { automaticAnswerNotes, declineNote, declineReason, departmentLabel } from './automatic-answers';

describe('the decline rule of automatic answers', () => {
  it('declines for a clinic that is not registered, and for one that does not offer the department', () => {
    expect(declineReason(undefined, '2300')).toBe('not-participating');
    expect(declineReason({ departments: ['0300'] }, '2300')).toBe('department-not-offered');
    expect(declineReason({ departments: ['0300', '2300'] }, '2300')).toBeUndefined();
  });

  it("words the note in German with the clinic's name and the department's", () => {
    expect(
      declineNote('department-not-offered', { ik: '510000001', name: 'Reha-Klinik Am Waldsee' }, { departmentCode: '2300', specialty: 'orthopedics' }),
    ).toBe('Reha-Klinik Am Waldsee: Absage für Orthopädie (2300) – automatisch, die Klinik bietet diese Fachabteilung nicht an.');
    expect(declineNote('not-participating', { ik: '510000009' }, { departmentCode: '2300' })).toBe(
      'Automatische Antwort: Die Klinik 510000009 ist keine teilnehmende Klinik.',
    );
  });
});

describe('the notes of answers from bed counts', () => {
  const waldsee = { ik: '510000001', name: 'Reha-Klinik Am Waldsee' };

  it('name the clinic, the department and the admission date, in German', () => {
    expect(automaticAnswerNotes.bedHeld(waldsee, 'Orthopädie (2300)', '2026-12-10')).toBe(
      'Reha-Klinik Am Waldsee: Zusage für Orthopädie (2300) zum 10.12.2026 – automatisch aus den veröffentlichten Bettenzahlen.',
    );
    expect(automaticAnswerNotes.noFreeBed(waldsee, 'Orthopädie (2300)', '2026-12-10')).toBe(
      'Reha-Klinik Am Waldsee: Absage für Orthopädie (2300) zum 10.12.2026 – automatisch aus den veröffentlichten Bettenzahlen, kein Bett frei.',
    );
  });

  it('name the clinic by its IK when its name is not known', () => {
    expect(automaticAnswerNotes.bedHeld({ ik: '510000001' }, '2300', '2026-12-10')).toMatch(/^Klinik mit IK 510000001: Zusage für 2300 zum 10\.12\.2026/);
  });
});

describe('departmentLabel', () => {
  it('names the specialty asked for in German, with the department key', () => {
    expect(departmentLabel({ departmentCode: '2800', specialty: 'neuro-phase-d' })).toBe('Neurologie Phase D (2800)');
  });

  it('names the specialty a department key is listed under when the request gave the key alone', () => {
    expect(departmentLabel({ departmentCode: '2800' })).toBe('Neurologie (2800)');
  });

  it('shows a department key outside the specialty table alone', () => {
    expect(departmentLabel({ departmentCode: '9999' })).toBe('9999');
  });

  it('has a German name for every specialty of the table', () => {
    for (const specialty of SPECIALTIES) {
      expect(departmentLabel({ departmentCode: specialty.department, specialty: specialty.code })).not.toContain(specialty.display);
    }
  });
});
