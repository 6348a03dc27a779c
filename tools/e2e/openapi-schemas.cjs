// The JSON Schemas of an OpenAPI document compiled with ajv (draft 2020-12, the dialect of OpenAPI
// 3.1), for openapi-contract.ts: the document comes as JSON text and is compiled once per process,
// each schema once, however many contracts are made of it. Under jest it is loaded through the
// worker's require (tools/jest/node-environment.cjs), so the compilation, about half a second, is done
// once per worker rather than once per test file. It runs in the worker's own realm: a value to check
// is cloned into it, and ajv's errors go back as JSON text.
'use strict';

const { createHash } = require('node:crypto');
const Ajv2020 = require('ajv/dist/2020').default;
const addFormats = require('ajv-formats').default;

/** By the SHA-256 of the document's JSON text: its ajv, and its validators by pointer and by schema text. */
const documents = new Map();

/** Takes a document (JSON text, its `$id` set) and returns its key; compiles nothing yet. */
function register(documentJson) {
  const key = createHash('sha256').update(documentJson).digest('hex');
  if (!documents.has(key)) {
    const document = JSON.parse(documentJson);
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(document, undefined, undefined, false);
    documents.set(key, { document, ajv, byPointer: new Map(), bySchema: new Map() });
  }
  return key;
}

/**
 * The validator of the schema at a local pointer (`#/paths/...`). The many answers that declare the
 * same schema (ApiError, OperationOutcome) share one, found by the schema's JSON text.
 */
function validatorOf(key, pointer) {
  const entry = documents.get(key);
  if (!entry) throw new Error(`no document registered as ${key}`);
  let validator = entry.byPointer.get(pointer);
  if (validator) return validator;
  let node = entry.document;
  for (const part of pointer.slice(2).split('/')) node = node[decodeURIComponent(part).replaceAll('~1', '/').replaceAll('~0', '~')];
  const schemaText = JSON.stringify(node);
  validator = entry.bySchema.get(schemaText);
  if (!validator) {
    validator = entry.ajv.compile({ $ref: `${entry.document.$id}${pointer}` });
    entry.bySchema.set(schemaText, validator);
  }
  entry.byPointer.set(pointer, validator);
  return validator;
}

function compile(key, pointer) {
  validatorOf(key, pointer);
}

/** Null when `value` is valid against the schema at `pointer`, else the JSON text of ajv's errors. */
function validate(key, pointer, value) {
  const validator = validatorOf(key, pointer);
  return validator(structuredClone(value)) ? null : JSON.stringify(validator.errors ?? []);
}

module.exports = { register, compile, validate };
