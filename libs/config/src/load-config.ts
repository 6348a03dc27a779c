import { type z } from 'zod';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/**
 * Parses the environment once, at start-up, with the service's schema. A bad value stops the
 * service with one line per problem naming the variable, instead of failing later mid-request.
 */
export function loadConfig<S extends z.ZodType>(schema: S, source: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(source);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const variable = issue.path.join('.') || '(environment)';
    return `  ${variable}: ${issue.message}`;
  });
  throw new ConfigError(`invalid configuration:\n${problems.join('\n')}`);
}
