// Types of image-digests.mjs for the TypeScript that imports it (tools/deploy/image-digests.spec.ts).

/** An image reference and where it is (`deploy/overlays/production: Deployment/gateway`, `docker-compose.yml`). */
export interface ImageReference {
  image: string;
  where: string;
}

/** An entry of deploy/images.yaml: the image as `name:tag` and its digest, null while none is recorded. */
export interface ImageDigest {
  image: string;
  digest: string | null;
}

/** `[registry[:port]/]path[:tag][@digest]` as name, tag and digest. */
export function parseReference(image: string): { name: string; tag: string | undefined; digest: string | undefined };

/** deploy/images.yaml's entries. */
export function readDigests(root?: string): ImageDigest[];

/** Every image reference of the rendered overlays, the compose files and the Dockerfile. */
export function imageReferences(root?: string): ImageReference[];

/** What is wrong with `references` against `entries`; with `release`, an image without a digest is too. */
export function digestProblems(references: readonly ImageReference[], entries: readonly ImageDigest[], options?: { release?: boolean }): string[];
