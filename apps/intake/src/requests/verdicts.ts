import type { IntakeVerdictV1, VerdictRefusal } from '@bedrequest/contracts';
import type { Issue } from '@bedrequest/fhir-model';

// The verdicts a batch gives its messages (the reply, and the inbox row a redelivery is answered from).

export const verdict = (outcome: 'accepted' | 'unchanged', extra: Pick<IntakeVerdictV1, 'requestIdentifier' | 'task'>): IntakeVerdictV1 => ({
  outcome,
  issues: [],
  ...extra,
});

export const rejected = (refusal: VerdictRefusal, code: Issue['code'], diagnostics: string): IntakeVerdictV1 => ({
  outcome: 'rejected',
  refusal,
  issues: [{ code, diagnostics }],
});

/** For anything sent about a request whose patient data was erased. */
export const erased = (): IntakeVerdictV1 => rejected('conflict', 'conflict', 'the patient data of this request was erased; nothing more is accepted for it');
