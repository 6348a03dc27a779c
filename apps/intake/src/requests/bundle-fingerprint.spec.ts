import { createHash } from 'node:crypto';
import { DataKeyring } from '@bedrequest/crypto';
import { MemoryKeyStore, kekSet, newKek } from '@bedrequest/crypto/testing';
import { canonicalJson } from '../persistence';
import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { bundleFingerprint, withoutClinics } from './bundle-fingerprint';

const keyOf = async (store = new MemoryKeyStore()) => (await DataKeyring.load({ keks: kekSet(newKek('kek-1')), store })).keyring.fingerprintKey();
const plainSha256 = (value: unknown) => createHash('sha256').update(canonicalJson(value)).digest('hex');

describe('the fingerprint of a bundle', () => {
  it('is the same whatever the key order, and another when an array is reordered', async () => {
    const key = await keyOf();
    expect(bundleFingerprint(key, { a: 1, b: [1, 2] }).value).toBe(bundleFingerprint(key, { b: [1, 2], a: 1 }).value);
    expect(bundleFingerprint(key, { a: 1, b: [1, 2] }).value).not.toBe(bundleFingerprint(key, { a: 1, b: [2, 1] }).value);
  });

  it('is keyed: not the plain SHA-256 of the canonical JSON, and another under another service key', async () => {
    const bundle = { resourceType: 'Bundle', entry: [{ resource: { name: [{ family: 'Musterfrau' }] } }] };
    const fingerprint = bundleFingerprint(await keyOf(), bundle).value;
    expect(fingerprint).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(fingerprint).not.toContain(plainSha256(bundle));
    expect(bundleFingerprint(await keyOf(), bundle).value).not.toBe(fingerprint);
  });

  it('without clinics: the same for a version that only names more clinics or is sent anew, another when anything else changed', async () => {
    const key = await keyOf();
    const identifier = 'https://hospital.example/fhir/ServiceRequest/r-1';
    const content = (bundle: unknown) => bundleFingerprint(key, withoutClinics(bundle)).value;
    const first = admissionRequestBundle({
      requestIdentifier: identifier,
      performerIks: ['510000001'],
      transmissionNumber: 't-1',
      timestamp: '2026-12-07T08:00:00Z',
    });
    const more = admissionRequestBundle({
      requestIdentifier: identifier,
      performerIks: ['510000001', '510000002'],
      transmissionNumber: 't-2',
      timestamp: '2026-12-07T09:00:00Z',
    });
    const changed = admissionRequestBundle({
      requestIdentifier: identifier,
      performerIks: ['510000001', '510000002'],
      transmissionNumber: 't-3',
      notes: ['Neu: Rollator'],
    });
    expect(content(more)).toBe(content(first));
    expect(content(changed)).not.toBe(content(first));
    expect(bundleFingerprint(key, more).value).not.toBe(bundleFingerprint(key, first).value);
    // Nothing of the clinics is left to fingerprint, and the bundle itself is untouched.
    expect(JSON.stringify(withoutClinics(more))).not.toContain('510000002');
    expect(JSON.stringify(more)).toContain('510000002');
  });
});
