import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { versionsSentTo } from './versions-sent';

const A = '510000001';
const B = '510000002';
const identifier = 'https://referrer.example/fhir/ServiceRequest/versions';
const bundle = (options: Parameters<typeof admissionRequestBundle>[0] = {}) =>
  admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A, B], ...options });

const sentTo = (clinicIk: string, ...bundles: unknown[]) =>
  versionsSentTo(
    clinicIk,
    bundles.map((bundle, index) => ({ version: index + 1, receivedAt: `2026-11-21T1${index}:00:00.000Z`, bundle })),
  ).map((version) => version.version);
const selectionOf = (clinicIk: string) => bundle({ intent: 'order', orderDetail: 'selected-provider', performerIks: [clinicIk], patient: 'complete' });
const withdrawalOf = (clinicIk: string) =>
  bundle({ intent: 'order', orderDetail: 'selected-provider-cancelled', performerIks: [clinicIk], patient: 'complete' });

describe('the versions a clinic was sent', () => {
  it('are those that name it as a performer', () => {
    expect(sentTo(A, bundle())).toEqual([1]);
    expect(sentTo(B, bundle({ performerIks: [A] }))).toEqual([]);
    expect(sentTo('599999999', bundle())).toEqual([]);
  });

  it('include a supplement that no longer names it while its Task is open: every open Task is asked again', () => {
    expect(sentTo(B, bundle(), bundle({ performerIks: [A], notes: ['nur noch A'] }))).toEqual([1, 2]);
  });

  it('leave out the selection of another clinic, a withdrawal and a revocation', () => {
    expect(sentTo(B, bundle(), selectionOf(B))).toEqual([1, 2]);
    expect(sentTo(A, bundle(), selectionOf(B))).toEqual([1]);
    expect(sentTo(B, bundle(), selectionOf(B), withdrawalOf(B))).toEqual([1, 2]);
    expect(sentTo(A, bundle(), bundle({ status: 'revoked' }))).toEqual([1]);
  });

  it('after a Task was cancelled, only a version that names its clinic again', () => {
    const history = [bundle(), selectionOf(B), withdrawalOf(B), bundle({ performerIks: [A], notes: ['neu'] }), bundle({ notes: ['beide'] })];
    expect(sentTo(A, ...history)).toEqual([1, 4, 5]);
    expect(sentTo(B, ...history)).toEqual([1, 2, 5]);
  });

  it('keep their order and skip what is not a bundle', () => {
    const versions = [
      { version: 1, receivedAt: '2026-11-21T10:00:00.000Z', bundle: bundle() },
      { version: 2, receivedAt: '2026-11-21T11:00:00.000Z', bundle: selectionOf(B) },
      { version: 3, receivedAt: '2026-11-21T12:00:00.000Z', bundle: { resourceType: 'Bundle' } },
      { version: 4, receivedAt: '2026-11-21T13:00:00.000Z', bundle: bundle({ notes: ['neu'] }) },
    ];
    expect(versionsSentTo(A, versions).map((version) => version.version)).toEqual([1, 4]);
    expect(versionsSentTo(B, versions).map((version) => version.version)).toEqual([1, 2, 4]);
  });
});
