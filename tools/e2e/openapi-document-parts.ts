// The parts of the OpenAPI document the contract check reads, and the closing of its object schemas.

export interface Schema {
  $ref?: string;
  type?: unknown;
  properties?: unknown;
  additionalProperties?: unknown;
  unevaluatedProperties?: unknown;
  [keyword: string]: unknown;
}
export interface HeaderDeclaration {
  $ref?: string;
  required?: boolean;
  schema?: Schema;
}
export interface Answer {
  $ref?: string;
  description: string;
  headers?: Record<string, HeaderDeclaration>;
  content?: Record<string, { schema?: Schema }>;
}
export interface Operation {
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
  responses: Record<string, Answer>;
}
export type PathItem = Partial<Record<Method, Operation>>;
export const METHODS = ['get', 'head', 'post', 'put', 'delete', 'patch', 'options'] as const;
export type Method = (typeof METHODS)[number];

/**
 * The stricter rule for objects (see the top of openapi-contract.ts): every object schema that
 * leaves open whether other properties may come is closed (`additionalProperties: false`); open
 * ones (`{}`) stay open. The document composes no schemas with allOf, whose parts this could not
 * close one by one.
 */
export function closed(node: unknown): unknown {
  if (Array.isArray(node)) {
    node.forEach(closed);
    return node;
  }
  if (typeof node !== 'object' || node === null) return node;
  const schema = node as Schema;
  if ('allOf' in schema) throw new Error('the e2e contract check cannot close allOf compositions; declare the object in one piece');
  if (
    (schema.type === 'object' || (typeof schema.properties === 'object' && typeof schema.type !== 'object')) &&
    schema.additionalProperties === undefined &&
    schema.unevaluatedProperties === undefined
  ) {
    schema.additionalProperties = false;
  }
  Object.values(schema).forEach(closed);
  return node;
}
