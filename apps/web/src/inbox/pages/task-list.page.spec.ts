import { de } from '../texts.de';
import { specialtyText } from './task-list.page';

describe("the list's department", () => {
  const request = { status: 'active', intent: 'proposal', requesterIk: '261300001' } as const;

  it('is named with its key, not as "Fachabteilung 2300"', () => {
    expect(specialtyText({ ...request, specialty: 'orthopedics', departmentCode: '2300' }, de)).toBe('Orthopädie (2300)');
  });

  it('takes the name from the key when the request gave the key alone, and the key alone when nothing names it', () => {
    expect(specialtyText({ ...request, departmentCode: '2300' }, de)).toBe('Orthopädie (2300)');
    expect(specialtyText({ ...request, departmentCode: '3700' }, de)).toBe('Fachabteilung 3700');
    expect(specialtyText(request, de)).toBe(de.task.none);
  });
});
