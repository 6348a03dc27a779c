import type { ClinicDirectoryClient } from '../clinics/clinic-directory.client';

/**
 * The IK numbers of the participating clinics, from routing's registry, cached briefly: every
 * bundle's performers are checked against them (decisions.md: a performer that is not a
 * participating clinic makes the bundle invalid), and asking routing for each bundle would put it
 * on the hot path. A clinic registered a moment ago is known after at most `ttlMs`.
 */
export class ParticipatingClinics {
  private cached?: { iks: ReadonlySet<string>; until: number };
  private loading?: Promise<ReadonlySet<string>>;

  constructor(
    private readonly directory: Pick<ClinicDirectoryClient, 'list'>,
    private readonly ttlMs = 5_000,
    private readonly now: () => number = Date.now,
  ) {}

  async iks(): Promise<ReadonlySet<string>> {
    if (this.cached && this.cached.until > this.now()) return this.cached.iks;
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
