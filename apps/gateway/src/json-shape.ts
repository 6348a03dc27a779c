const QUOTE = 0x22; // "
const BACKSLASH = 0x5c; // \
const COMMA = 0x2c; // ,
const OPEN_BRACKET = 0x5b; // [
const CLOSE_BRACKET = 0x5d; // ]
const OPEN_BRACE = 0x7b; // {
const CLOSE_BRACE = 0x7d; // }
/**
 * A string is read byte by byte up to this length, past it by Buffer.indexOf: most strings of a
 * bundle are short (keys, codes, references), where a call per string costs more than the loop;
 * base64 attachment data runs to megabytes, where the loop would cost more than the call.
 */
const SHORT_STRING = 64;

export interface JsonShapeLimits {
  /** Arrays and objects nested in each other (the body's own counts as one). */
  depth: number;
  /** Items of an array, or keys of an object. */
  members: number;
}

/**
 * The first of `limits` that UTF-8 JSON text exceeds, read from its bytes without parsing it
 * (undefined when it exceeds neither): brackets and commas count outside strings only. It stops at
 * the first excess and validates nothing else: unbalanced brackets or an unterminated string are
 * JSON.parse's to refuse. UTF-8 can be read byte by byte here: every byte of a multi-byte character
 * is 0x80 or above.
 */
export function exceededShapeLimit(json: Buffer, limits: JsonShapeLimits): keyof JsonShapeLimits | undefined {
  // commas[d]: the commas seen so far in the array or object open at depth d.
  const commas = new Int32Array(limits.depth + 1);
  let depth = 0;
  for (let index = 0; index < json.length; index++) {
    const byte = json[index];
    if (byte === QUOTE) index = closingQuote(json, index);
    else if (byte === COMMA && depth > 0) {
      const count = (commas[depth] ?? 0) + 1;
      if (count >= limits.members) return 'members';
      commas[depth] = count;
    } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      if (++depth > limits.depth) return 'depth';
      commas[depth] = 0;
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) depth = Math.max(0, depth - 1);
  }
  return undefined;
}

/** The index of the quote that ends the string opened at `opening` (the end of `json` when none does). */
function closingQuote(json: Buffer, opening: number): number {
  let index = opening + 1;
  const shortEnd = Math.min(json.length, index + SHORT_STRING);
  while (index < shortEnd) {
    const byte = json[index];
    if (byte === QUOTE) return index;
    index += byte === BACKSLASH ? 2 : 1;
  }
  // Everything before `index` is read (an escape's second byte included): a quote after it is
  // escaped when an odd number of backslashes, counted back to `index`, stands before it.
  for (let quote = json.indexOf(QUOTE, index); quote !== -1; quote = json.indexOf(QUOTE, quote + 1)) {
    let backslashes = 0;
    while (quote - backslashes > index && json[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
  }
  return json.length;
}
