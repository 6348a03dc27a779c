/**
 * FHIRPath expressions for validation issues (docs/decisions.md, "Errors": validation issues carry the
 * FHIRPath of the offending element, e.g. `Bundle.entry[0].resource.identifier[0].value`).
 */

import { excerpt, MAX_EXCERPT_LENGTH } from './excerpt';

export type PathSegment = string | number;

const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** `_family` in FHIR JSON carries the id and extensions of the primitive `family`; FHIRPath calls both `family`. */
const PRIMITIVE_EXTENSION_KEY = /^_[A-Za-z]/;

export function fhirPath(segments: readonly PropertyKey[], root = 'Bundle'): string {
  return segments.reduce<string>((path, segment) => path + step(segment), root);
}

function step(segment: PropertyKey): string {
  if (typeof segment === 'number') return `[${segment}]`;
  const name = typeof segment === 'string' ? segment : String(segment);
  const element = PRIMITIVE_EXTENSION_KEY.test(name) ? name.slice(1) : name;
  // Keys that are not FHIRPath identifiers are written as delimited identifiers; an unknown key of
  // megabytes is named by its excerpt, so that the expression stays as small as the diagnostics.
  if (element.length <= MAX_EXCERPT_LENGTH && PLAIN_IDENTIFIER.test(element)) return `.${element}`;
  return `.\`${excerpt(element).replace(/[`\\]/g, (c) => `\\${c}`)}\``;
}

/** The name of the element a path ends in, for diagnostics ("status is required"). */
export function elementName(segments: readonly PropertyKey[], root = 'Bundle'): string {
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i];
    if (typeof segment === 'string') return segment;
  }
  return root;
}
