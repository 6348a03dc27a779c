import { z } from 'zod';

/** An IK number (Institutionskennzeichen): 9 digits (docs/decisions.md, "Parties and credentials"). */
export const IkNumber = z.string().regex(/^\d{9}$/);
