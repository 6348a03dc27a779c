/** Registers an OpenAPI document (JSON text with its `$id`) and returns its key (openapi-schemas.cjs). */
export function register(documentJson: string): string;
/** Compiles the schema at a local pointer (`#/paths/...`) of a registered document. */
export function compile(key: string, pointer: string): void;
/** Null when `value` matches the schema at `pointer`, else the JSON text of ajv's errors. */
export function validate(key: string, pointer: string, value: unknown): string | null;
