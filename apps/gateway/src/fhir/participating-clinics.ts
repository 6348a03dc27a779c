import type { ClinicDirectoryClient } from '../clinics/clinic-directory.client';

/**
 * The IK numbers of the participating clinics, from routing's registry, cached briefly: every
 * bundle's performers are checked against them (decisions.md: a performer that is not a
 * participating clinic makes the bundle invalid), and asking routing for each bundle would put it
 * on the hot path. An IK missing from the cache triggers one fresh look-up before it is refused,
 * so a clinic registered a moment ago is accepted at once.
 */
export class ParticipatingClinics {
  private cached?: { iks: ReadonlySet<string>; until: number };
  private loading?: Promise<ReadonlySet<string>>;

  constructor(
    private readonly directory: Pick<ClinicDirectoryClient, 'list'>,
    private readonly ttlMs = 5_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The IKs of `iks` that are not participating clinics. */
  async unknown(iks: readonly string[]): Promise<string[]> {
    const stale = !this.cached || this.cached.until <= this.now();
    let known = stale ? await this.load() : this.cached!.iks;
    const missing = () => iks.filter((ik) => !known.has(ik));
    if (missing().length && !stale) known = await this.load();
    return missing();
  }

  private load(): Promise<ReadonlySet<string>> {
    this.loading ??= this.directory
      .list()
      .then((list) => {
        const iks = new Set(list.items.map((clinic) => clinic.ik));
        this.cached = { iks, until: this.now() + this.ttlMs };
        return iks;
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }
}
