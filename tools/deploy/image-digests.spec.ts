// The one file of the production images' digests (deploy/images.yaml) and the check of every image
// reference against it (image-digests.mjs; docs/operations.md, "Image digests"). Digests cannot be
// read from a registry here: the check is on form, and on the references agreeing with the file.
import { digestProblems, imageReferences, parseReference, readDigests, type ImageDigest, type ImageReference } from './image-digests.mjs';

const DIGEST = `sha256:${'ab'.repeat(32)}`;
const OTHER = `sha256:${'cd'.repeat(32)}`;

describe('deploy/images.yaml', () => {
  const references = imageReferences();
  const recorded = readDigests();

  it('finds every image the production overlay, the infrastructure example, the compose files and the Dockerfile run', () => {
    const found = new Set(references.map((reference) => reference.image));
    const expected = [
      ...['provision', 'gateway', 'web', 'auth', 'intake', 'routing', 'notifier'].map((name) => `registry.example.org/bedrequest/${name}:1.0.0`),
      'postgres:16-alpine',
      'redis:7-alpine',
      'rabbitmq:3.13-management-alpine',
      'caddy:2-alpine',
      'node:24-bookworm-slim',
      'docker.io/library/redis:7.4.5-alpine',
      'ghcr.io/cloudnative-pg/postgresql:16.9',
      'rabbitmq:3.13.7-management',
    ];
    expect(expected.filter((image) => !found.has(image))).toEqual([]);
    expect(references.every((reference) => reference.where.length > 0)).toBe(true);
  });

  it('lists each of them once, with a digest of the form sha256:<64 hex digits> or none recorded yet, and every reference carries the one recorded', () => {
    expect(digestProblems(references, recorded)).toEqual([]);
  });

  it('records no digest it could not have read: each is null until a release fills it in from the registry', () => {
    // docs/operations.md, "Image digests": no registry is reachable from here.
    expect(recorded.filter((entry) => entry.digest !== null)).toEqual([]);
  });
});

describe('the image digest check', () => {
  const reference = (image: string, where = 'deploy/x.yaml'): ImageReference => ({ image, where });
  const entry = (image: string, digest: string | null): ImageDigest => ({ image, digest });

  it('reads a reference as name, tag and digest', () => {
    expect(parseReference(`registry.example.org:5000/team/app:1.2@${DIGEST}`)).toEqual({
      name: 'registry.example.org:5000/team/app',
      tag: '1.2',
      digest: DIGEST,
    });
    expect(parseReference('postgres')).toEqual({ name: 'postgres', tag: undefined, digest: undefined });
    expect(parseReference(`node@${DIGEST}`)).toEqual({ name: 'node', tag: undefined, digest: DIGEST });
  });

  it('fails on a reference the file does not list, and on a digest of another form', () => {
    expect(digestProblems([reference('busybox:1.36')], [])).toEqual(['deploy/x.yaml: busybox:1.36 is not in deploy/images.yaml']);
    expect(digestProblems([reference('busybox:1.36')], [entry('busybox:1.36', 'sha256:abc')])).toEqual([
      'deploy/images.yaml: busybox:1.36: "sha256:abc" is not a digest (sha256:<64 hex digits>)',
    ]);
    expect(digestProblems([reference('busybox:1.36@sha256:ABC')], [entry('busybox:1.36', null)])).toEqual([
      'deploy/x.yaml: busybox:1.36@sha256:ABC: "sha256:ABC" is not a digest (sha256:<64 hex digits>)',
    ]);
  });

  it('fails on a reference without the digest the file records, or with another one', () => {
    expect(digestProblems([reference('busybox:1.36')], [entry('busybox:1.36', DIGEST)])).toEqual([
      `deploy/x.yaml: busybox:1.36 is not pulled by the digest deploy/images.yaml records: busybox:1.36@${DIGEST}`,
    ]);
    expect(digestProblems([reference(`busybox:1.36@${OTHER}`)], [entry('busybox:1.36', DIGEST)])).toEqual([
      `deploy/x.yaml: busybox:1.36@${OTHER} is not pulled by the digest deploy/images.yaml records: busybox:1.36@${DIGEST}`,
    ]);
  });

  it('takes a reference by digest alone (kustomize drops the tag when it sets one) as the entry of that digest', () => {
    expect(digestProblems([reference(`busybox@${DIGEST}`), reference(`busybox:1.36@${DIGEST}`)], [entry('busybox:1.36', DIGEST)])).toEqual([]);
    expect(digestProblems([reference(`busybox@${DIGEST}`)], [entry('busybox:1.36', null)])).toEqual([
      `deploy/x.yaml: busybox@${DIGEST} is not in deploy/images.yaml`,
    ]);
  });

  it('fails on an entry listed twice or referenced nowhere', () => {
    expect(digestProblems([reference('busybox:1.36')], [entry('busybox:1.36', null), entry('busybox:1.36', null), entry('alpine:3', null)])).toEqual([
      'deploy/images.yaml: busybox:1.36 is listed twice',
      'deploy/images.yaml: alpine:3 is referenced nowhere',
    ]);
  });

  it('for a release, also fails on every image without a digest yet', () => {
    const references = [reference('busybox:1.36'), reference(`alpine:3@${DIGEST}`)];
    const entries = [entry('busybox:1.36', null), entry('alpine:3', DIGEST)];
    expect(digestProblems(references, entries)).toEqual([]);
    expect(digestProblems(references, entries, { release: true })).toEqual(['deploy/images.yaml: busybox:1.36 has no digest yet: read it from its registry']);
  });
});
