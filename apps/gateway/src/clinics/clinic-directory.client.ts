import { z } from 'zod';

/** decisions.md: `GET /api/v1/kliniken` returns `{"items": [{"ik", "name", "departments": [{"code", "specialty", "display"}]}]}`. */
export const ClinicList = z.object({
  items: z.array(
    z.object({
      ik: z.string(),
      name: z.string(),
      departments: z.array(z.object({ code: z.string(), specialty: z.string(), display: z.string() })),
    }),
  ),
});
export type ClinicList = z.infer<typeof ClinicList>;

/** Routing's clinic API did not answer, or answered something unusable: 503. */
export class ClinicDirectoryUnavailableError extends Error {
  override name = 'ClinicDirectoryUnavailableError';
}

/** Reads the participating clinics from routing's internal API (routing owns the registry). */
export class ClinicDirectoryClient {
  constructor(private readonly routingUrl: string) {}

  async list(correlationId?: string): Promise<ClinicList> {
    let body: unknown;
    try {
      const response = await fetch(new URL('/internal/clinics', this.routingUrl), {
        headers: correlationId ? { 'x-correlation-id': correlationId } : {},
        signal: AbortSignal.timeout(5_000),
      });
      if (!response.ok) throw new Error(`routing answered HTTP ${response.status}`);
      body = await response.json();
    } catch (error) {
      throw new ClinicDirectoryUnavailableError('the clinic registry is unavailable', { cause: error });
    }
    const list = ClinicList.safeParse(body);
    if (!list.success) throw new ClinicDirectoryUnavailableError('the clinic registry answered in an unexpected shape');
    // Only the documented fields go out, whatever routing adds internally.
    return list.data;
  }
}
