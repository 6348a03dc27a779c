import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { DEPLOY_DIR, nameOf, type KubernetesObject } from './manifests';

/**
 * Every rendered object checked against the schema of its kind: the core kinds and KEDA's with the
 * kubernetes-models packages (validate-models.mjs), the operators' kinds with the OpenAPI schemas of
 * their CustomResourceDefinitions, vendored in deploy/schemas/ (its README names their sources).
 */

type Schema = Record<string, unknown>;

/**
 * An operator's schema made as strict as the API server's strict field validation: an object that
 * lists its properties takes no others (a misspelt field is an error, where the server would drop
 * it), unless the CRD keeps unknown fields there.
 */
function strict(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(strict);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy = Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === 'enum' || key === 'default' ? value : strict(value)])) as Schema;
  if (copy.properties && copy.additionalProperties === undefined && copy['x-kubernetes-preserve-unknown-fields'] !== true) copy.additionalProperties = false;
  return copy;
}

/** deploy/schemas/<group>_<version>_<Kind>.json, compiled, by `apiVersion/kind`. */
function operatorValidators(): Map<string, ValidateFunction> {
  // Go's regular expressions, not JavaScript's unicode ones; formats of the OpenAPI dialect ajv-formats lacks.
  const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
  addFormats(ajv);
  for (const format of ['int32', 'int64', 'double', 'float', 'byte']) ajv.addFormat(format, true);
  const dir = join(DEPLOY_DIR, 'schemas');
  const validators = new Map<string, ValidateFunction>();
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
    const [group, version, kind] = file.replace(/\.json$/, '').split('_');
    const schema = JSON.parse(readFileSync(join(dir, file), 'utf8')) as unknown;
    validators.set(`${group}/${version}/${kind}`, ajv.compile(strict(schema) as Schema));
  }
  return validators;
}

let operators: Map<string, ValidateFunction> | undefined;

/** What is wrong with each object, one line per problem (`Kind/name: /path message`); empty when all are valid. */
export function schemaProblems(objects: readonly KubernetesObject[]): string[] {
  operators ??= operatorValidators();
  const models = JSON.parse(
    execFileSync(process.execPath, [join(__dirname, 'validate-models.mjs')], { input: JSON.stringify(objects), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }),
  ) as (null | 'no model' | string[])[];
  return objects.flatMap((object, index) => {
    const validate = operators!.get(`${object.apiVersion}/${object.kind}`);
    if (validate) {
      return validate(object) ? [] : (validate.errors ?? []).map((error) => `${nameOf(object)}: ${error.instancePath || '/'} ${error.message}`);
    }
    const found = models[index];
    if (found === 'no model') return [`${nameOf(object)}: no schema for ${object.apiVersion} ${object.kind} (kubernetes-models, or a CRD in deploy/schemas)`];
    return (found ?? []).map((problem) => `${nameOf(object)}: ${problem}`);
  });
}
