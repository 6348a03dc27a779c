import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { versionsSentTo, wasSentTo } from './versions-sent';

const A = '510000001';
const B = '510000002';
const identifier = 'https://referrer.example/fhir/ServiceRequest/versions';
const bundle = (options: Parameters<typeof admissionRequestBundle>[0] = {}) =>
  admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A, B], ...options });

describe('the versions a clinic was sent', () => {
  it('are those that name it as a performer', () => {
    expect(wasSentTo(A, bundle())).toBe(true);
    expect(wasSentTo(B, bundle({ performerIks: [A] }))).toBe(false);
    expect(wasSentTo('599999999', bundle())).toBe(false);
  });

  it('leave out the selection of another clinic, a withdrawal and a revocation', () => {
    const selection = bundle({ intent: 'order', orderDetail: 'selected-provider', performerIks: [B] });
    expect(wasSentTo(B, selection)).toBe(true);
    expect(wasSentTo(A, selection)).toBe(false);
    expect(wasSentTo(B, bundle({ intent: 'order', orderDetail: 'selected-provider-cancelled', performerIks: [B], patient: 'complete' }))).toBe(false);
    expect(wasSentTo(A, bundle({ status: 'revoked' }))).toBe(false);
  });

  it('keep their order and skip what is not a bundle', () => {
    const versions = [
      { version: 1, receivedAt: '2026-11-21T10:00:00.000Z', bundle: bundle() },
      { version: 2, receivedAt: '2026-11-21T11:00:00.000Z', bundle: bundle({ intent: 'order', orderDetail: 'selected-provider', performerIks: [B] }) },
      { version: 3, receivedAt: '2026-11-21T12:00:00.000Z', bundle: { resourceType: 'Bundle' } },
      { version: 4, receivedAt: '2026-11-21T13:00:00.000Z', bundle: bundle({ notes: ['neu'] }) },
    ];
    expect(versionsSentTo(A, versions).map((version) => version.version)).toEqual([1, 4]);
    expect(versionsSentTo(B, versions).map((version) => version.version)).toEqual([1, 2, 4]);
  });
});
