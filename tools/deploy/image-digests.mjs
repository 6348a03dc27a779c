// The production images' digests (docs/operations.md, "Image digests"): deploy/images.yaml lists
// every image that deploy/, the compose files and the Dockerfile name, each with the digest it is to
// be pulled by (a tag can be moved to other content, a digest cannot), and this checks the references
// against it. CI (tools/deploy/image-digests.spec.ts) checks the form: every reference listed, every
// digest sha256:<64 hex digits> or not recorded yet (null), every reference carrying the one recorded.
// A release also requires every digest:
//
//   node tools/deploy/image-digests.mjs            the form only
//   node tools/deploy/image-digests.mjs --release  and no image without its digest
//
// prints one line per problem and exits 1 if there is any. Renders deploy/ with kubectl's kustomize.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, parseAllDocuments } from 'yaml';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const LISTING = 'deploy/images.yaml';
const OVERLAYS = ['production', 'infrastructure-example'];
const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** `[registry[:port]/]path[:tag][@digest]` as name, tag and digest. */
export function parseReference(image) {
  const at = image.indexOf('@');
  const named = at === -1 ? image : image.slice(0, at);
  const digest = at === -1 ? undefined : image.slice(at + 1);
  const colon = named.lastIndexOf(':');
  const hasTag = colon > named.lastIndexOf('/');
  return { name: hasTag ? named.slice(0, colon) : named, tag: hasTag ? named.slice(colon + 1) : undefined, digest };
}

/** deploy/images.yaml's entries: `image` (name:tag) and `digest` (null while none is recorded). */
export function readDigests(root = ROOT) {
  const { images } = parse(readFileSync(join(root, LISTING), 'utf8'));
  return images.map(({ image, digest }) => ({ image, digest: digest ?? null }));
}

/** Every image reference of the rendered overlays, the compose files and the Dockerfile, with where it is. */
export function imageReferences(root = ROOT) {
  const references = [];
  for (const overlay of OVERLAYS) {
    const rendered = execFileSync('kubectl', ['kustomize', join(root, 'deploy', 'overlays', overlay)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    for (const document of parseAllDocuments(rendered)) {
      const object = document.toJS();
      if (!object) continue;
      // Containers' `image`, and the operators' own fields (CloudNativePG's `imageName`, RabbitMQ's `image`).
      const visit = (node) => {
        if (Array.isArray(node)) return node.forEach(visit);
        if (typeof node !== 'object' || node === null) return;
        for (const [key, value] of Object.entries(node)) {
          if ((key === 'image' || key === 'imageName') && typeof value === 'string') {
            references.push({ image: value, where: `deploy/overlays/${overlay}: ${object.kind}/${object.metadata?.name}` });
          } else visit(value);
        }
      };
      visit(object);
    }
  }
  for (const file of ['docker-compose.yml', 'docker-compose.prod.yml']) {
    for (const [, image] of readFileSync(join(root, file), 'utf8').matchAll(/^\s*image:\s*['"]?([^'"\s#]+)/gm)) references.push({ image, where: file });
  }
  // The base image, given as NODE_IMAGE's default; the other FROM lines name stages or that argument.
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  const stages = new Set([...dockerfile.matchAll(/^FROM \S+ AS (\S+)$/gim)].map(([, stage]) => stage));
  for (const [, image] of dockerfile.matchAll(/^ARG NODE_IMAGE=(\S+)$/gm)) references.push({ image, where: 'Dockerfile (NODE_IMAGE)' });
  for (const [, image] of dockerfile.matchAll(/^FROM (\S+)/gm)) {
    if (!image.includes('$') && !stages.has(image)) references.push({ image, where: 'Dockerfile' });
  }
  return references;
}

/** What is wrong with `references` against `entries` (deploy/images.yaml); with `release`, an image without a digest is too. */
export function digestProblems(references, entries, { release = false } = {}) {
  const problems = [];
  const notADigest = (digest) => `"${digest}" is not a digest (sha256:<64 hex digits>)`;
  const seen = new Set();
  for (const { image, digest } of entries) {
    if (seen.has(image)) problems.push(`${LISTING}: ${image} is listed twice`);
    seen.add(image);
    if (digest !== null && !DIGEST.test(digest)) problems.push(`${LISTING}: ${image}: ${notADigest(digest)}`);
  }
  const used = new Set();
  for (const { image, where } of references) {
    const { name, tag, digest } = parseReference(image);
    const entry = entries.find((candidate) => {
      const listed = parseReference(candidate.image);
      return listed.name === name && (tag !== undefined ? listed.tag === tag : digest !== undefined && candidate.digest === digest);
    });
    if (digest !== undefined && !DIGEST.test(digest)) {
      if (entry) used.add(entry.image);
      problems.push(`${where}: ${image}: ${notADigest(digest)}`);
      continue;
    }
    if (!entry) {
      // By a digest the file does not record: one problem, not also its name's entry as unused.
      if (tag === undefined) for (const candidate of entries) if (parseReference(candidate.image).name === name) used.add(candidate.image);
      problems.push(`${where}: ${image} is not in ${LISTING}`);
      continue;
    }
    used.add(entry.image);
    if (entry.digest !== null && DIGEST.test(entry.digest) && digest !== entry.digest) {
      problems.push(`${where}: ${image} is not pulled by the digest ${LISTING} records: ${entry.image}@${entry.digest}`);
    }
  }
  for (const { image } of entries) if (!used.has(image)) problems.push(`${LISTING}: ${image} is referenced nowhere`);
  if (release) {
    for (const { image, digest } of entries) if (digest === null) problems.push(`${LISTING}: ${image} has no digest yet: read it from its registry`);
  }
  return [...new Set(problems)];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const release = process.argv.includes('--release');
  const problems = digestProblems(imageReferences(), readDigests(), { release });
  for (const problem of problems) console.error(problem);
  if (problems.length === 0) console.log(`every image reference agrees with ${LISTING}${release ? ', and every image has its digest' : ''}`);
  process.exitCode = problems.length > 0 ? 1 : 0;
}
