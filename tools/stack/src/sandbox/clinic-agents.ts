import { unwatchFile, watchFile, type Stats } from 'node:fs';
import { ClinicAgent, type AgentOptions } from './clinic-agent';
import { readRules, type SandboxClinic } from './rules';

export interface ClinicAgentsOptions extends AgentOptions {
  /** The rules file (docs/sandbox.md, "The rules file"), read at start and again whenever it changes. */
  readonly rulesFile: string;
  /** How the file is named in the lines (default: its path). */
  readonly rulesFileName?: string;
  /**
   * Registers clinics, with their users, that are not yet registered as the file has them (the
   * sandbox's admin command line); rejects with the reason. Called for every clinic at start.
   */
  readonly register: (clinics: SandboxClinic[]) => Promise<void>;
  /** How often each clinic looks for waiting Tasks (default 1 s). */
  readonly pollMs?: number;
}

/**
 * The demo clinics of the rules file, each a ClinicAgent, looking for waiting Tasks every second.
 * A change of the file takes effect without a restart: a file with a problem is one line naming the
 * clinic and the field, and the rules before stay in force; a clinic new to the file, or with
 * another name, departments or user, is registered first.
 */
export class ClinicAgents {
  private readonly agents = new Map<string, ClinicAgent>();
  /** The registration of each clinic as last made: its name, departments and user. */
  private readonly registered = new Map<string, string>();
  /** The last problem of each clinic's round, said once until it changes. */
  private readonly problems = new Map<string, string>();
  private current: SandboxClinic[] = [];
  private reloading: Promise<void> = Promise.resolve();
  private stopped = false;
  private loop: Promise<void> = Promise.resolve();
  private wake: (() => void) | undefined;

  private constructor(private readonly options: ClinicAgentsOptions) {}

  /** Reads the file, registers its clinics and starts them; rejects with the file's problem. */
  static async start(options: ClinicAgentsOptions): Promise<ClinicAgents> {
    const agents = new ClinicAgents(options);
    const reading = await readRules(options.rulesFile);
    if ('problem' in reading) throw new Error(`${agents.fileName}: ${reading.problem}`);
    await agents.apply(reading.clinics);
    watchFile(options.rulesFile, { interval: 250 }, agents.onChange);
    agents.loop = agents.run();
    return agents;
  }

  /** The clinics in force. */
  get clinics(): readonly SandboxClinic[] {
    return this.current;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    unwatchFile(this.options.rulesFile, this.onChange);
    this.wake?.();
    await this.loop;
    await this.reloading;
  }

  private readonly onChange = (now: Stats, before: Stats) => {
    if (now.mtimeMs === before.mtimeMs && now.size === before.size) return;
    this.reloading = this.reloading.then(() => this.reload());
  };

  private async reload(): Promise<void> {
    if (this.stopped) return;
    const reading = await readRules(this.options.rulesFile);
    if ('problem' in reading) return this.options.log(`${this.fileName}: ${reading.problem}; the rules before stay in force`);
    try {
      await this.apply(reading.clinics);
    } catch (error) {
      return this.options.log(`${this.fileName}: ${error instanceof Error ? error.message : String(error)}; the rules before stay in force`);
    }
    this.options.log(
      `${this.fileName} reloaded: ${reading.clinics.length} clinics, ${reading.clinics.reduce((sum, clinic) => sum + clinic.rules.length, 0)} rules`,
    );
  }

  /** Registers what changed, then puts the clinics in force: new agents, new rules, and no agent for a clinic the file dropped. */
  private async apply(clinics: SandboxClinic[]): Promise<void> {
    const changed = clinics.filter((clinic) => this.registered.get(clinic.ik) !== registrationOf(clinic));
    if (changed.length > 0) await this.options.register(changed);
    for (const clinic of changed) this.registered.set(clinic.ik, registrationOf(clinic));
    const iks = new Set(clinics.map((clinic) => clinic.ik));
    for (const ik of [...this.agents.keys()]) if (!iks.has(ik)) this.agents.delete(ik);
    for (const clinic of clinics) {
      const agent = this.agents.get(clinic.ik);
      if (agent) agent.update(clinic);
      else this.agents.set(clinic.ik, new ClinicAgent(clinic, this.options));
    }
    this.current = clinics;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      await Promise.all(
        [...this.agents.values()].map((agent) =>
          agent.round().then(
            () => this.problems.delete(agent.ik),
            (error: unknown) => this.problem(agent.ik, error),
          ),
        ),
      );
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.options.pollMs ?? 1_000);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  private problem(ik: string, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    if (this.problems.get(ik) === message) return;
    this.problems.set(ik, message);
    this.options.log(`${ik}: ${message}; trying again`);
  }

  private get fileName(): string {
    return this.options.rulesFileName ?? this.options.rulesFile;
  }
}

const registrationOf = (clinic: SandboxClinic) => JSON.stringify([clinic.name, clinic.departments, clinic.username]);
