import { validateDocumentBundle } from './document-bundle';
import {
  buildDocumentBundle,
  DOCUMENT_BUNDLE_MAX_BYTES,
  DOCUMENT_TITLE_MAX_LENGTH,
  DOCUMENTS_PER_BUNDLE,
  documentBundleCapacity,
} from './document-bundle-build';
import { DEFAULT_PROFILE_BASE } from './systems';

const options = { profileBase: DEFAULT_PROFILE_BASE, requestIdentifier: 'https://hospital.example/fhir/ServiceRequest/1', author: 'Akutklinik Mitte' };

describe('buildDocumentBundle', () => {
  it('builds a DocumentBundle the gateway accepts: the Composition first, each document naming the request, its bytes in base64', () => {
    const pdf = Buffer.from('%PDF-1.4\n%…\n');
    const bundle = buildDocumentBundle(
      [
        { title: 'Arztbrief', contentType: 'application/pdf', content: pdf },
        { title: 'Befund', contentType: 'image/png', content: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
      ],
      options,
    );
    const result = validateDocumentBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE });
    expect(result).toMatchObject({ ok: true, bundle: { requestIdentifier: options.requestIdentifier, documentCount: 2 } });
    expect(bundle.entry?.[0]?.resource).toMatchObject({ resourceType: 'Composition', title: 'Arztbrief, Befund', author: [{ display: 'Akutklinik Mitte' }] });
    const attachment = (bundle.entry?.[1]?.resource as { content: { attachment: { data: string; title: string } }[] }).content[0]!.attachment;
    expect(Buffer.from(attachment.data, 'base64').equals(pdf)).toBe(true);
    expect(attachment.title).toBe('Arztbrief');
  });
});

describe('documentBundleCapacity', () => {
  const capacity = documentBundleCapacity(DEFAULT_PROFILE_BASE);

  it('is the 10 MiB less base64 growth and the frame: about 7.5 MiB', () => {
    expect(capacity).toBeGreaterThan(7.4 * 1024 * 1024);
    expect(capacity).toBeLessThan((DOCUMENT_BUNDLE_MAX_BYTES * 3) / 4);
  });

  it('holds the largest bundle of documents that fill it, with the longest titles, within 10 MiB', () => {
    const share = Math.floor(capacity / DOCUMENTS_PER_BUNDLE);
    const documents = Array.from({ length: DOCUMENTS_PER_BUNDLE }, (_, n) => ({
      title: String.fromCharCode(0x4e00 + n).repeat(DOCUMENT_TITLE_MAX_LENGTH),
      contentType: 'application/pdf',
      content: Buffer.alloc(n === 0 ? capacity - share * (DOCUMENTS_PER_BUNDLE - 1) : share, 1),
    }));
    expect(documents.reduce((sum, each) => sum + each.content.length, 0)).toBe(capacity);
    const bundle = buildDocumentBundle(documents, { ...options, requestIdentifier: `urn:${'x'.repeat(2044)}`, author: '€'.repeat(200) });
    expect(Buffer.byteLength(JSON.stringify(bundle))).toBeLessThanOrEqual(DOCUMENT_BUNDLE_MAX_BYTES);
  });
});
