import type { SummaryRow } from './clinic-task-summary';

/** The longest search text (`q`). */
export const MAX_SEARCH_LENGTH = 100;

/**
 * What `q` of the list searches for (docs/api.md, "Clinic API"):
 * - a request number, the first 4 to 8 hex digits of the Task id with at least one digit among them
 *   ("3F9A-12C0", "3f9a"; spaces and hyphens aside): a range of the Task table's primary key;
 * - nine digits: the referrer's IK, in clear on the request;
 * - anything else: text, compared with the main diagnosis (its code from the start, dots aside, or
 *   its text), the referrer's name and IK and the request number, case-insensitively. These are in
 *   the sealed list summary (docs/data-protection.md), so text is compared in memory, over the
 *   clinic's rows alone (at most MAX_SCAN of them).
 */
export type ListSearch = { kind: 'number'; low: string; high: string } | { kind: 'ik'; ik: string } | { kind: 'text'; text: string };

export function listSearchOf(q: string): ListSearch {
  const compact = q.replace(/[\s-]/g, '').toLowerCase();
  if (/^[0-9a-f]{4,8}$/.test(compact) && /[0-9]/.test(compact)) {
    return { kind: 'number', low: uuidOf(compact.padEnd(32, '0')), high: uuidOf(compact.padEnd(32, 'f')) };
  }
  if (/^[0-9]{9}$/.test(compact)) return { kind: 'ik', ik: compact };
  return { kind: 'text', text: q.toLowerCase() };
}

function uuidOf(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Whether a row's summary matches a text search (listSearchOf). */
export function matchesText(row: SummaryRow, text: string): boolean {
  const code = text.replace(/[\s.]/g, '');
  const compact = text.replace(/[\s-]/g, '');
  return (
    (code.length > 0 && (row.diagnosis_code ?? '').replace(/\./g, '').toLowerCase().startsWith(code)) ||
    (row.diagnosis_display ?? '').toLowerCase().includes(text) ||
    (row.requester_name ?? '').toLowerCase().includes(text) ||
    (compact.length > 0 && row.referrer_ik.startsWith(compact)) ||
    (compact.length > 0 && row.id.replace(/-/g, '').startsWith(compact))
  );
}
