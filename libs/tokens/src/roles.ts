/** docs/decisions.md, "Parties and credentials": the two roles that log in. */
export type Role = 'referrer' | 'clinic';

export const ANY_ROLE: readonly Role[] = ['referrer', 'clinic'];
