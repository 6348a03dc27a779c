import { z } from 'zod';

/**
 * The NODE_ENV values that relax the production rule. Anything else, NODE_ENV unset included, is
 * production: a deployment that forgets NODE_ENV gets the guards, not the development shortcuts
 * (docs/operations.md, "Production by default").
 */
const RELAXED_ENVIRONMENTS: ReadonlySet<unknown> = new Set(['development', 'test']);

/** What configSchema hands a variable that is unset outside production: "take your local default". */
const USE_LOCAL_DEFAULT = Symbol('use the local default');

const requiredInProductionFields = new WeakSet<object>();

const isSet = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/**
 * A variable that production must be given: a secret, a key, or a connection URL that carries
 * credentials. Unset or empty, it stops the start with one line, `VARIABLE: required in production:
 * <what>`. Only a schema made with configSchema relaxes that outside production, where `field`
 * alone decides: its local default (`npm start`'s PostgreSQL, say), or unset for a development key.
 * So a schema that forgets configSchema refuses to start rather than run on development defaults.
 */
export function requiredInProduction<Field extends z.ZodType<unknown, string | undefined>>(field: Field, what: string) {
  const guarded = z.preprocess(
    (value) => (value === USE_LOCAL_DEFAULT ? undefined : isSet(value) ? value : null),
    z
      .string({ error: `required in production: ${what}` })
      .optional()
      .pipe(field),
  );
  requiredInProductionFields.add(guarded);
  return guarded;
}

/**
 * The schema of a service's (or an admin command's) configuration: `z.object(shape)`, where the
 * variables marked requiredInProduction keep their local defaults with NODE_ENV=development or test.
 */
export function configSchema<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.preprocess((source) => relaxedOutsideProduction(shape, source), z.object(shape));
}

function relaxedOutsideProduction(shape: z.ZodRawShape, source: unknown): unknown {
  if (typeof source !== 'object' || source === null) return source;
  const environment = source as Record<string, unknown>;
  if (!RELAXED_ENVIRONMENTS.has(environment.NODE_ENV)) return source;
  const relaxed = { ...environment };
  for (const [variable, field] of Object.entries(shape)) {
    if (requiredInProductionFields.has(field) && !isSet(environment[variable])) relaxed[variable] = USE_LOCAL_DEFAULT;
  }
  return relaxed;
}
