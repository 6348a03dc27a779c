import type { Bundle } from '@medplum/fhirtypes';
import { validateDocumentBundle } from './document-bundle';
import type { Issue, IssueCode } from './outcome';
import { DEFAULT_PROFILE_BASE, fhirSystems } from './systems';
import { documentBundle, setAt } from './testing';

const REQUEST = 'https://referrer.example/fhir/ServiceRequest/9a1d1f3e-52b4-4c0c-9d65-3c8f0e7b6a21';
const systems = fhirSystems(DEFAULT_PROFILE_BASE);
const twoDocuments = () =>
  documentBundle({
    requestIdentifier: REQUEST,
    documents: [
      { contentType: 'application/pdf', text: '%PDF-1.7 Arztbrief', title: 'Arztbrief' },
      { contentType: 'text/plain; charset=utf-8', text: 'Befund' },
    ],
  });
const issuesOf = (bundle: unknown): Issue[] => {
  const result = validateDocumentBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE });
  return result.ok ? [] : result.issues;
};
const DR = 'entry[1].resource';

describe('validateDocumentBundle', () => {
  it('accepts the fixture and names the request and the number of documents', () => {
    const bundle = twoDocuments();
    expect(validateDocumentBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE })).toEqual({
      ok: true,
      bundle: { requestIdentifier: REQUEST, documentCount: 2, bundle },
    });
  });

  it('accepts base64 data broken into lines', () => {
    const data = Buffer.from('x'.repeat(200))
      .toString('base64')
      .replace(/(.{76})/g, '$1\n');
    expect(issuesOf(setAt(twoDocuments(), `${DR}.content[0].attachment.data`, data))).toEqual([]);
  });

  it('accepts attachment data beyond the string limit of other fields', () => {
    const data = Buffer.alloc(3_000_000, 1).toString('base64');
    expect(issuesOf(setAt(twoDocuments(), `${DR}.content[0].attachment.data`, data))).toEqual([]);
  });

  it.each<[string, (bundle: Bundle) => unknown, IssueCode, string]>([
    ['without the DocumentBundle profile', (b) => setAt(b, 'meta.profile', [systems.admissionRequestBundleProfile]), 'value', 'Bundle.meta.profile'],
    ['of type collection', (b) => setAt(b, 'type', 'collection'), 'code-invalid', 'Bundle.type'],
    ['without entries', (b) => setAt(b, 'entry', []), 'required', 'Bundle.entry'],
    ['without a Composition first', (b) => b.entry?.reverse(), 'invalid', 'Bundle.entry[0].resource.resourceType'],
    ['without DocumentReference', (b) => b.entry?.splice(1), 'required', 'Bundle.entry'],
    ['with an entry without fullUrl', (b) => setAt(b, 'entry[2].fullUrl', undefined), 'required', 'Bundle.entry[2].fullUrl'],
    ['with a duplicate fullUrl', (b) => setAt(b, 'entry[2].fullUrl', b.entry?.[1]?.fullUrl), 'invalid', 'Bundle.entry[2].fullUrl'],
    ['with a DocumentReference without content', (b) => setAt(b, `${DR}.content`, []), 'required', 'Bundle.entry[1].resource.content'],
    [
      'with an attachment without contentType',
      (b) => setAt(b, `${DR}.content[0].attachment.contentType`, undefined),
      'required',
      'Bundle.entry[1].resource.content[0].attachment.contentType',
    ],
    [
      'with a malformed contentType',
      (b) => setAt(b, `${DR}.content[0].attachment.contentType`, 'pdf'),
      'value',
      'Bundle.entry[1].resource.content[0].attachment.contentType',
    ],
    [
      'with an attachment without data',
      (b) => setAt(b, `${DR}.content[0].attachment.data`, undefined),
      'required',
      'Bundle.entry[1].resource.content[0].attachment.data',
    ],
    [
      'with data that is not base64',
      (b) => setAt(b, `${DR}.content[0].attachment.data`, 'not base64!'),
      'value',
      'Bundle.entry[1].resource.content[0].attachment.data',
    ],
    [
      'with base64 of a wrong length',
      (b) => setAt(b, `${DR}.content[0].attachment.data`, 'abcde'),
      'value',
      'Bundle.entry[1].resource.content[0].attachment.data',
    ],
    ['without context', (b) => setAt(b, `${DR}.context`, undefined), 'required', 'Bundle.entry[1].resource.context'],
    [
      'without the request identifier',
      (b) => setAt(b, `${DR}.context.related[0].identifier.system`, 'urn:oid:1.2.3'),
      'required',
      'Bundle.entry[1].resource.context.related',
    ],
    [
      'with a request identifier that is not a URI',
      (b) => setAt(b, `${DR}.context.related[0].identifier.value`, '42'),
      'value',
      'Bundle.entry[1].resource.context.related[0].identifier.value',
    ],
    [
      'naming two requests',
      (b) => setAt(b, 'entry[2].resource.context.related[0].identifier.value', `${REQUEST}-other`),
      'invalid',
      'Bundle.entry[2].resource.context.related',
    ],
    ['with a huge string outside attachments', (b) => setAt(b, 'entry[0].resource.title', 'x'.repeat(20_000)), 'too-long', 'Bundle.entry[0].resource.title'],
  ])('rejects a bundle %s', (_, breakIt, code, expression) => {
    const bundle = twoDocuments();
    breakIt(bundle);
    expect(issuesOf(bundle)).toEqual([expect.objectContaining({ code, expression })]);
  });
});
