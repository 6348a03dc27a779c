import type { Bundle } from '@medplum/fhirtypes';
import { validateAdmissionRequestBundle } from './admission-request-bundle';
import type { Issue, IssueCode } from './outcome';
import { DEFAULT_PROFILE_BASE, DEPARTMENT_KEY_SYSTEM, fhirSystems, IK_NUMBER_SYSTEM } from './systems';
import { admissionRequestBundle, setAt } from './testing';

/**
 * One row per field rule of the spec's resource tables: a valid fixture with exactly that rule
 * broken gives exactly one issue, of the expected type, at the expected FHIRPath.
 * Entry order of the fixture: 0 ServiceRequest, 1 Patient, 2 Coverage, 3 Encounter,
 * 4-6 Condition, 7 weight and 8 height Observation, 9 requester, 10-11 performer Organizations.
 */

const REQUEST = 'https://referrer.example/fhir/ServiceRequest/5f0c7d7e-5d0e-4d55-8a44-1f0a1c9b2e31';
const systems = fhirSystems(DEFAULT_PROFILE_BASE);
const specialty = (code: string) => ({ system: systems.specialtySystem, code, display: code });
const department = (code: string) => ({ system: DEPARTMENT_KEY_SYSTEM, code, display: `department ${code}` });
const deepLink = (value: string) => ({ system: systems.performerDeepLinkSystem, value });

type Base = 'proposal' | 'complete';
type Row = [rule: string, base: Base, at: string, value: unknown, code: IssueCode, expression: string];

const bundleFor = (base: Base): Bundle => admissionRequestBundle({ requestIdentifier: REQUEST, patient: base === 'complete' ? 'complete' : 'masked' });

function issuesAfter(base: Base, at: string, value: unknown): Issue[] {
  const result = validateAdmissionRequestBundle(setAt(bundleFor(base), at, value), { profileBase: DEFAULT_PROFILE_BASE });
  return result.ok ? [] : result.issues;
}

const expectOnlyIssue = ([, base, at, value, code, expression]: Row) =>
  expect(issuesAfter(base, at, value)).toEqual([expect.objectContaining({ code, expression })]);

const SR = 'entry[0].resource';
const serviceRequestRules: Row[] = [
  ['id is required', 'proposal', `${SR}.id`, undefined, 'required', 'Bundle.entry[0].resource.id'],
  ['id is a UUID', 'proposal', `${SR}.id`, 'sr-1', 'value', 'Bundle.entry[0].resource.id'],
  ['identifier is required', 'proposal', `${SR}.identifier`, [], 'required', 'Bundle.entry[0].resource.identifier'],
  [
    'identifier is exactly one',
    'proposal',
    `${SR}.identifier[1]`,
    { system: 'urn:ietf:rfc:3986', value: 'urn:x:y' },
    'structure',
    'Bundle.entry[0].resource.identifier',
  ],
  [
    'identifier system is urn:ietf:rfc:3986',
    'proposal',
    `${SR}.identifier[0].system`,
    'https://referrer.example/ids',
    'code-invalid',
    'Bundle.entry[0].resource.identifier[0].system',
  ],
  ['identifier value is an absolute URI', 'proposal', `${SR}.identifier[0].value`, '7d827281', 'value', 'Bundle.entry[0].resource.identifier[0].value'],
  ['status is active or revoked', 'proposal', `${SR}.status`, 'completed', 'code-invalid', 'Bundle.entry[0].resource.status'],
  ['status is required', 'proposal', `${SR}.status`, undefined, 'required', 'Bundle.entry[0].resource.status'],
  ['intent is proposal or order', 'proposal', `${SR}.intent`, 'plan', 'code-invalid', 'Bundle.entry[0].resource.intent'],
  ['code is required', 'proposal', `${SR}.code`, undefined, 'required', 'Bundle.entry[0].resource.code'],
  ['code has a service-type coding', 'proposal', `${SR}.code.coding[0].system`, 'http://snomed.info/sct', 'required', 'Bundle.entry[0].resource.code.coding'],
  [
    'code is one of the four service types',
    'proposal',
    `${SR}.code.coding[0].code`,
    'outpatient-rehabilitation',
    'code-invalid',
    'Bundle.entry[0].resource.code.coding[0].code',
  ],
  [
    'code has one service type only',
    'proposal',
    `${SR}.code.coding[1]`,
    { system: systems.serviceTypeSystem, code: 'early-rehabilitation' },
    'invalid',
    'Bundle.entry[0].resource.code.coding[1]',
  ],
  ['performerType is required', 'proposal', `${SR}.performerType`, undefined, 'required', 'Bundle.entry[0].resource.performerType'],
  ['performerType has a coding', 'proposal', `${SR}.performerType.coding`, [], 'required', 'Bundle.entry[0].resource.performerType.coding'],
  [
    'performerType codings are specialty or department key',
    'proposal',
    `${SR}.performerType.coding[1].system`,
    'http://snomed.info/sct',
    'code-invalid',
    'Bundle.entry[0].resource.performerType.coding[1].system',
  ],
  [
    'performerType codings have a display',
    'proposal',
    `${SR}.performerType.coding[0].display`,
    undefined,
    'required',
    'Bundle.entry[0].resource.performerType.coding[0].display',
  ],
  [
    'performerType codings have a code',
    'proposal',
    `${SR}.performerType.coding[1].code`,
    undefined,
    'required',
    'Bundle.entry[0].resource.performerType.coding[1].code',
  ],
  [
    'specialty codes come from the table',
    'proposal',
    `${SR}.performerType.coding[0]`,
    specialty('surgery'),
    'code-invalid',
    'Bundle.entry[0].resource.performerType.coding[0].code',
  ],
  [
    'department keys have 4 digits',
    'proposal',
    `${SR}.performerType.coding[1]`,
    department('230'),
    'value',
    'Bundle.entry[0].resource.performerType.coding[1].code',
  ],
  [
    'one specialty coding only',
    'proposal',
    `${SR}.performerType.coding[1]`,
    specialty('cardiology'),
    'invalid',
    'Bundle.entry[0].resource.performerType.coding[1]',
  ],
  ['one department key only', 'proposal', `${SR}.performerType.coding[0]`, department('0300'), 'invalid', 'Bundle.entry[0].resource.performerType.coding[1]'],
  ['subject is required', 'proposal', `${SR}.subject`, undefined, 'required', 'Bundle.entry[0].resource.subject'],
  ['subject is a Reference', 'proposal', `${SR}.subject`, 'urn:uuid:x', 'structure', 'Bundle.entry[0].resource.subject'],
  ['requester is required', 'proposal', `${SR}.requester`, undefined, 'required', 'Bundle.entry[0].resource.requester'],
  ['performer is required', 'proposal', `${SR}.performer`, undefined, 'required', 'Bundle.entry[0].resource.performer'],
  ['performer has at least one clinic', 'proposal', `${SR}.performer`, [], 'required', 'Bundle.entry[0].resource.performer'],
  [
    'performer items have a reference',
    'proposal',
    `${SR}.performer[1]`,
    { display: 'Rehaklinik' },
    'required',
    'Bundle.entry[0].resource.performer[1].reference',
  ],
  ['occurrenceDateTime is a date', 'proposal', `${SR}.occurrenceDateTime`, '2026-12-01T08:00:00+01:00', 'value', 'Bundle.entry[0].resource.occurrenceDateTime'],
  ['occurrenceDateTime is a calendar date', 'proposal', `${SR}.occurrenceDateTime`, '2026-02-30', 'value', 'Bundle.entry[0].resource.occurrenceDateTime'],
  [
    'orderDetail has the order-detail-type system',
    'proposal',
    `${SR}.orderDetail`,
    [{ coding: [{ system: 'urn:x', code: 'selected-provider' }] }],
    'code-invalid',
    'Bundle.entry[0].resource.orderDetail[0].coding[0].system',
  ],
  [
    'orderDetail codes are selected-provider(-cancelled)',
    'proposal',
    `${SR}.orderDetail`,
    [{ coding: [{ system: systems.orderDetailSystem, code: 'selected' }] }],
    'code-invalid',
    'Bundle.entry[0].resource.orderDetail[0].coding[0].code',
  ],
  ['note is an array', 'proposal', `${SR}.note`, 'Einzelzimmer', 'structure', 'Bundle.entry[0].resource.note'],
  ['note text is a string', 'proposal', `${SR}.note[0].text`, 42, 'structure', 'Bundle.entry[0].resource.note[0].text'],
  ['note text is not empty', 'proposal', `${SR}.note[0].text`, '', 'value', 'Bundle.entry[0].resource.note[0].text'],
];

const P = 'entry[1].resource';
const masked = { _family: { extension: [{ url: 'http://hl7.org/fhir/StructureDefinition/iso21090-nullFlavor', valueCode: 'MSK' }] } };
const patientRules: Row[] = [
  ['identifier is required', 'proposal', `${P}.identifier`, undefined, 'required', 'Bundle.entry[1].resource.identifier'],
  [
    'identifier system is urn:ietf:rfc:3986',
    'proposal',
    `${P}.identifier[0].system`,
    'http://fhir.de/sid/gkv/kvid-10',
    'code-invalid',
    'Bundle.entry[1].resource.identifier[0].system',
  ],
  ['identifier value is an absolute URI', 'proposal', `${P}.identifier[0].value`, 'A123456789', 'value', 'Bundle.entry[1].resource.identifier[0].value'],
  ['name is required', 'proposal', `${P}.name`, undefined, 'required', 'Bundle.entry[1].resource.name'],
  ['a name is complete or masked', 'proposal', `${P}.name[0]`, { text: 'Erika Musterfrau' }, 'required', 'Bundle.entry[1].resource.name[0].family'],
  ['masking uses the nullFlavor MSK', 'proposal', `${P}.name[0]._family.extension[0].valueCode`, 'UNK', 'required', 'Bundle.entry[1].resource.name[0].family'],
  ['family is a string', 'complete', `${P}.name[0].family`, ['Musterfrau'], 'structure', 'Bundle.entry[1].resource.name[0].family'],
  ['given names are strings', 'complete', `${P}.name[0].given`, 'Erika', 'structure', 'Bundle.entry[1].resource.name[0].given'],
  ['gender is required', 'proposal', `${P}.gender`, undefined, 'required', 'Bundle.entry[1].resource.gender'],
  ['gender is an administrative gender', 'proposal', `${P}.gender`, 'f', 'code-invalid', 'Bundle.entry[1].resource.gender'],
  ['birthDate is required', 'proposal', `${P}.birthDate`, undefined, 'required', 'Bundle.entry[1].resource.birthDate'],
  ['birthDate is YYYY-MM-DD', 'proposal', `${P}.birthDate`, '01.01.1956', 'value', 'Bundle.entry[1].resource.birthDate'],
  ['birthDate is a full date', 'proposal', `${P}.birthDate`, '1956', 'value', 'Bundle.entry[1].resource.birthDate'],
  ['postalCode is a string', 'proposal', `${P}.address[0].postalCode`, 10115, 'structure', 'Bundle.entry[1].resource.address[0].postalCode'],
  ['city is a string', 'proposal', `${P}.address[0].city`, null, 'structure', 'Bundle.entry[1].resource.address[0].city'],
  ['address lines are an array of strings', 'complete', `${P}.address[0].line`, 'Invalidenstraße 117', 'structure', 'Bundle.entry[1].resource.address[0].line'],
  ['telecom system is phone or email', 'complete', `${P}.telecom[0].system`, 'fax', 'code-invalid', 'Bundle.entry[1].resource.telecom[0].system'],
  ['telecom value is required', 'complete', `${P}.telecom[0].value`, undefined, 'required', 'Bundle.entry[1].resource.telecom[0].value'],
  ['telecom use is a contact point use', 'complete', `${P}.telecom[0].use`, 'private', 'code-invalid', 'Bundle.entry[1].resource.telecom[0].use'],
  ['a masked patient has no address lines', 'proposal', `${P}.address[0].line`, ['Invalidenstraße 117'], 'invalid', 'Bundle.entry[1].resource.address[0].line'],
  [
    'a masked patient has no telecom',
    'proposal',
    `${P}.telecom`,
    [{ system: 'phone', value: '+49 30 1234567' }],
    'invalid',
    'Bundle.entry[1].resource.telecom',
  ],
  ['a masked patient has no given names', 'proposal', `${P}.name[0]`, { ...masked, given: ['Erika'] }, 'invalid', 'Bundle.entry[1].resource.name[0].given'],
];

const C = 'entry[2].resource';
const coverageRules: Row[] = [
  ['status is active', 'proposal', `${C}.status`, 'cancelled', 'code-invalid', 'Bundle.entry[2].resource.status'],
  ['type is required', 'proposal', `${C}.type`, undefined, 'required', 'Bundle.entry[2].resource.type'],
  [
    'type has an insurance type coding',
    'proposal',
    `${C}.type.coding[0].system`,
    'http://terminology.hl7.org/CodeSystem/v3-ActCode',
    'required',
    'Bundle.entry[2].resource.type.coding',
  ],
  ['beneficiary is required', 'proposal', `${C}.beneficiary`, undefined, 'required', 'Bundle.entry[2].resource.beneficiary'],
  ['payor is required', 'proposal', `${C}.payor`, [], 'required', 'Bundle.entry[2].resource.payor'],
  [
    'payor identifier has the IK system',
    'proposal',
    `${C}.payor[0].identifier.system`,
    'http://fhir.de/sid/gkv/kvid-10',
    'code-invalid',
    'Bundle.entry[2].resource.payor[0].identifier.system',
  ],
  [
    'payor identifier is a 9-digit IK number',
    'proposal',
    `${C}.payor[0].identifier.value`,
    '10951900',
    'value',
    'Bundle.entry[2].resource.payor[0].identifier.value',
  ],
  ['payor display is required', 'proposal', `${C}.payor[0].display`, undefined, 'required', 'Bundle.entry[2].resource.payor[0].display'],
];

const E = 'entry[3].resource';
const encounterRules: Row[] = [
  ['status is in-progress or finished', 'proposal', `${E}.status`, 'planned', 'code-invalid', 'Bundle.entry[3].resource.status'],
  ['class is required', 'proposal', `${E}.class`, undefined, 'required', 'Bundle.entry[3].resource.class'],
  ['class has the v3-ActCode system', 'proposal', `${E}.class.system`, 'http://snomed.info/sct', 'code-invalid', 'Bundle.entry[3].resource.class.system'],
  ['class has a code', 'proposal', `${E}.class.code`, undefined, 'required', 'Bundle.entry[3].resource.class.code'],
  ['subject is required', 'proposal', `${E}.subject`, undefined, 'required', 'Bundle.entry[3].resource.subject'],
  ['serviceProvider is required', 'proposal', `${E}.serviceProvider`, undefined, 'required', 'Bundle.entry[3].resource.serviceProvider'],
  ['period.start is required', 'proposal', `${E}.period`, { end: '2026-12-01' }, 'required', 'Bundle.entry[3].resource.period.start'],
  ['period.start is a FHIR dateTime', 'proposal', `${E}.period.start`, '15.11.2026', 'value', 'Bundle.entry[3].resource.period.start'],
];

const D = 'entry[4].resource';
const conditionRules: Row[] = [
  ['code has an ICD-10-GM coding', 'proposal', `${D}.code.coding[0].system`, 'http://snomed.info/sct', 'required', 'Bundle.entry[4].resource.code.coding'],
  ['codings have a code', 'proposal', `${D}.code.coding[0].code`, undefined, 'required', 'Bundle.entry[4].resource.code.coding[0].code'],
  ['coding version is a string', 'proposal', `${D}.code.coding[0].version`, 2025, 'structure', 'Bundle.entry[4].resource.code.coding[0].version'],
  ['subject is required', 'proposal', `${D}.subject`, undefined, 'required', 'Bundle.entry[4].resource.subject'],
  ['recordedDate is required', 'proposal', `${D}.recordedDate`, undefined, 'required', 'Bundle.entry[4].resource.recordedDate'],
  ['recordedDate is a FHIR dateTime', 'proposal', `${D}.recordedDate`, '2026-11-18T10:15', 'value', 'Bundle.entry[4].resource.recordedDate'],
];

const W = 'entry[7].resource';
const H = 'entry[8].resource';
const observationRules: Row[] = [
  ['status is final', 'proposal', `${W}.status`, 'preliminary', 'code-invalid', 'Bundle.entry[7].resource.status'],
  ['code has a LOINC coding', 'proposal', `${W}.code.coding[0].system`, 'http://snomed.info/sct', 'required', 'Bundle.entry[7].resource.code.coding'],
  ['subject is required', 'proposal', `${W}.subject`, undefined, 'required', 'Bundle.entry[7].resource.subject'],
  ['valueQuantity is required', 'proposal', `${W}.valueQuantity`, undefined, 'required', 'Bundle.entry[7].resource.valueQuantity'],
  ['value is a number', 'proposal', `${W}.valueQuantity.value`, '72.5', 'structure', 'Bundle.entry[7].resource.valueQuantity.value'],
  ['unit is always present', 'proposal', `${W}.valueQuantity.unit`, undefined, 'required', 'Bundle.entry[7].resource.valueQuantity.unit'],
  ['system is UCUM', 'proposal', `${W}.valueQuantity.system`, 'http://snomed.info/sct', 'code-invalid', 'Bundle.entry[7].resource.valueQuantity.system'],
  ['code is required', 'proposal', `${W}.valueQuantity.code`, undefined, 'required', 'Bundle.entry[7].resource.valueQuantity.code'],
  ['weight is measured in kg', 'proposal', `${W}.valueQuantity.code`, 'g', 'code-invalid', 'Bundle.entry[7].resource.valueQuantity.code'],
  ['height is measured in cm', 'proposal', `${H}.valueQuantity.code`, 'm', 'code-invalid', 'Bundle.entry[8].resource.valueQuantity.code'],
];

const O = 'entry[10].resource';
const organizationRules: Row[] = [
  ['identifier is required', 'proposal', `${O}.identifier`, undefined, 'required', 'Bundle.entry[10].resource.identifier'],
  ['an IK number identifier is required', 'proposal', `${O}.identifier[0].system`, 'urn:ietf:rfc:3986', 'required', 'Bundle.entry[10].resource.identifier'],
  ['the IK number has 9 digits', 'proposal', `${O}.identifier[0].value`, '5100000011', 'value', 'Bundle.entry[10].resource.identifier[0].value'],
  ['the IK number is digits only', 'proposal', `${O}.identifier[0].value`, '51000000X', 'value', 'Bundle.entry[10].resource.identifier[0].value'],
  [
    'one IK number only',
    'proposal',
    `${O}.identifier[1]`,
    { system: IK_NUMBER_SYSTEM, value: '510000009' },
    'invalid',
    'Bundle.entry[10].resource.identifier[1]',
  ],
  ['the deep link is an absolute URI', 'proposal', `${O}.identifier[1]`, deepLink('requests/42'), 'value', 'Bundle.entry[10].resource.identifier[1].value'],
  ['name is required', 'proposal', `${O}.name`, undefined, 'required', 'Bundle.entry[10].resource.name'],
  ['the requester has an IK number too', 'proposal', 'entry[9].resource.identifier[0].value', '', 'value', 'Bundle.entry[9].resource.identifier[0].value'],
];

describe('validateAdmissionRequestBundle: resource field rules', () => {
  it.each(serviceRequestRules)('ServiceRequest: %s', (...row) => expectOnlyIssue(row));
  it.each(patientRules)('Patient: %s', (...row) => expectOnlyIssue(row));
  it.each(coverageRules)('Coverage: %s', (...row) => expectOnlyIssue(row));
  it.each(encounterRules)('Encounter: %s', (...row) => expectOnlyIssue(row));
  it.each(conditionRules)('Condition: %s', (...row) => expectOnlyIssue(row));
  it.each(observationRules)('Observation: %s', (...row) => expectOnlyIssue(row));
  it.each(organizationRules)('Organization: %s', (...row) => expectOnlyIssue(row));

  it('Organization: at most one performer deep link', () => {
    const bundle = admissionRequestBundle({ requestIdentifier: REQUEST, performerDeepLinks: { '510000001': 'https://r.example/1' } });
    setAt(bundle, `${O}.identifier[2]`, deepLink('https://r.example/2'));
    const result = validateAdmissionRequestBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE });
    expect(result.ok ? [] : result.issues).toEqual([expect.objectContaining({ code: 'invalid', expression: 'Bundle.entry[10].resource.identifier[2]' })]);
  });

  it.each([
    ['a complete name without given names', 'complete', `${P}.name[0].given`, undefined],
    ['an email address', 'complete', `${P}.telecom[0]`, { system: 'email', value: 'erika@example.org' }],
    ['a patient without address', 'proposal', `${P}.address`, undefined],
    ['a service type other than the default', 'proposal', `${SR}.code.coding[0].code`, 'early-rehabilitation'],
    ['an extra coding of another system in code', 'proposal', `${SR}.code.coding[1]`, { system: 'http://snomed.info/sct', code: '52052004' }],
    ['a weight with a German unit text', 'proposal', `${W}.valueQuantity.unit`, 'Kilogramm'],
    ['an Observation other than weight or height', 'proposal', `${W}.code.coding[0].code`, '8867-4'],
    ['a condition with two ICD-10-GM codings', 'proposal', `${D}.code.coding[1]`, { system: 'http://fhir.de/CodeSystem/bfarm/icd-10-gm', code: 'Z96.64' }],
  ] as const)('accepts %s', (_, base, at, value) => {
    expect(issuesAfter(base, at, value)).toEqual([]);
  });
});
