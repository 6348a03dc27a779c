import type { ElementDefinition, StructureDefinition } from '@medplum/fhirtypes';
import { fhirSystems } from '../systems';
import { MAX_ANSWER_DEADLINE_DAYS } from '../validation/answer-deadline';
import { canonicalMetadata, type ConformanceOptions } from './canonical';

const EXTENSION_BASE_DEFINITION = 'http://hl7.org/fhir/StructureDefinition/Extension';

/**
 * The extensions of the interface (docs/api.md, "Answer deadlines") as FHIR R4 extension
 * definitions: a simple extension each, a `valueDateTime` (or `valueCode`) on one context element.
 */
export function extensionDefinitions(options: ConformanceOptions): StructureDefinition[] {
  const systems = fhirSystems(options.profileBase);
  const extension = (
    url: string,
    names: { name: string; title: string; description: string },
    context: string,
    value: { short: string; definition: string },
    type: 'dateTime' | 'code' = 'dateTime',
  ): StructureDefinition => {
    const element: ElementDefinition[] = [
      { id: 'Extension', path: 'Extension', short: names.title, definition: names.description, min: 0, max: '1' },
      { id: 'Extension.extension', path: 'Extension.extension', max: '0' },
      { id: 'Extension.url', path: 'Extension.url', fixedUri: url },
      { id: 'Extension.value[x]', path: 'Extension.value[x]', min: 1, type: [{ code: type }], ...value },
    ];
    return {
      resourceType: 'StructureDefinition',
      ...canonicalMetadata({ url, ...names }, options),
      fhirVersion: '4.0.1',
      kind: 'complex-type',
      abstract: false,
      context: [{ type: 'element', expression: context }],
      type: 'Extension',
      baseDefinition: EXTENSION_BASE_DEFINITION,
      derivation: 'constraint',
      differential: { element },
    };
  };
  return [
    extension(
      systems.answerDeadlineExtension,
      {
        name: 'AnswerDeadline',
        title: 'Answer deadline',
        description:
          "By when the referrer needs the clinics' answers. Absent on a new request: the referrer's default, the time of receipt plus its working days (Europe/Berlin; Saturdays, Sundays and its state's public holidays skipped). Absent on an update: unchanged. Every Task of the request carries it as restriction.period.end.",
      },
      'ServiceRequest',
      {
        short: 'A date-time with seconds and a time-zone offset',
        definition: `Later than the time of receipt on a new request and on an update that changes it, and at most ${MAX_ANSWER_DEADLINE_DAYS} days ahead.`,
      },
    ),
    extension(
      systems.answerOverdueExtension,
      {
        name: 'AnswerOverdue',
        title: 'Answer overdue',
        description:
          'The Task waits for its clinic (status requested) and its deadline (restriction.period.end) has passed: the service marked it overdue. Removed when the clinic answers or the deadline moves into the future.',
      },
      'Task',
      { short: 'When the service marked the Task overdue (an instant in UTC)', definition: 'When the service marked the Task overdue.' },
    ),
    extension(
      systems.askedByRuleExtension,
      {
        name: 'AskedByRule',
        title: 'Asked by rule',
        description:
          "The referrer's rule asked this clinic after the request's deadline, when fewer clinics than the rule says were still open: no version of the request named it. Its own deadline (restriction.period.end) is the referrer's default from that moment.",
      },
      'Task',
      {
        short: 'list | registry',
        definition:
          "`list`: from the referrer's own list of clinics, in its order; `registry`: from the registry's clinics with the request's department, nearest first.",
      },
      'code',
    ),
  ];
}
