import { ClinicTaskList, type ClinicTaskSummary } from '@bedrequest/contracts';
import { planAnswer, waitKeyOf, type PlannedAnswer } from './decide';
import type { SandboxClinic } from './rules';

/** The demo password of a sandbox user (docs/sandbox.md, "The demo parties"): public, for a local sandbox only. */
export const sandboxPassword = (username: string) => `${username}-password`;

export interface AgentOptions {
  /** The sandbox's gateway: the agent is a client of the public API like any other. */
  readonly gatewayUrl: string;
  /** One line per answer and per problem: ids and codes, never patient data. */
  readonly log: (line: string) => void;
  readonly now?: () => Date;
}

/**
 * One demo clinic, acting through the public API as the clinic's own software would: it logs in as
 * the clinic's user, lists the Tasks waiting for the clinic (`GET /api/v1/clinic/tasks?state=new`),
 * plans an answer for each by the clinic's rules (decide.ts) once per waiting period, and gives it
 * when due with `POST /api/v1/clinic/tasks/{id}/answer` and the Task's ETag as `If-Match`, so that
 * an answer a person gave meanwhile, or a supplement, is never answered over (docs/api.md, "Clinic API").
 */
export class ClinicAgent {
  private token: string | undefined;
  private readonly plans = new Map<string, PlannedAnswer | 'none'>();
  /** Waiting periods answered, kept while the list still shows them (an answer queued at intake shows a moment later). */
  private readonly answered = new Set<string>();
  /** What was said about a problem, so that a Task failing every second is one line, not one a second. */
  private readonly reported = new Set<string>();

  constructor(
    private clinic: SandboxClinic,
    private readonly options: AgentOptions,
  ) {}

  get ik(): string {
    return this.clinic.ik;
  }

  /** New rules: every Task not answered yet is planned again under them. */
  update(clinic: SandboxClinic): void {
    this.clinic = clinic;
    this.plans.clear();
  }

  /** One round: the waiting Tasks are planned, the answers due are given. */
  async round(): Promise<void> {
    const waiting = await this.waitingTasks();
    const keys = new Set(waiting.map(waitKeyOf));
    for (const seen of [this.plans, this.answered, this.reported]) {
      for (const key of [...seen.keys()]) if (!keys.has(key)) seen.delete(key);
    }
    const now = this.now();
    for (const task of waiting) {
      const key = waitKeyOf(task);
      if (this.answered.has(key)) continue;
      let plan = this.plans.get(key);
      if (plan === undefined) {
        plan = planAnswer(this.clinic.rules, task, now) ?? 'none';
        this.plans.set(key, plan);
        if (plan === 'none') this.say(`Task ${task.id} (version ${task.version}): no rule holds, left to a person (the inbox)`);
      }
      if (plan !== 'none' && plan.dueAt <= now.getTime()) await this.answer(task, key, plan);
    }
  }

  private async answer(task: ClinicTaskSummary, key: string, plan: PlannedAnswer): Promise<void> {
    const read = await this.call(`/api/v2/fhir/Task/${task.id}`);
    if (read.status !== 200) return this.report(key, `Task ${task.id}: reading it answered ${read.status}; trying again`);
    const current = (await read.json()) as { status?: string; meta?: { lastUpdated?: string } };
    const etag = read.headers.get('etag');
    // Changed since the list was read (a person answered, a supplement came): the next round sees it as it is now.
    if (current.status !== 'requested' || Date.parse(current.meta?.lastUpdated ?? '') !== Date.parse(task.lastModified) || !etag) return;
    const body = { businessStatus: plan.businessStatus, ...(plan.note === undefined ? {} : { note: plan.note }) };
    const response = await this.call(`/api/v1/clinic/tasks/${task.id}/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'if-match': etag },
      body: JSON.stringify(body),
    });
    const what = `Task ${task.id} (version ${task.version})`;
    if (response.status === 200 || response.status === 202) {
      this.answered.add(key);
      this.say(`${what} answered ${plan.businessStatus} by rule ${plan.rule}${response.status === 202 ? ' (queued at intake)' : ''}`);
    } else if (response.status === 412) {
      this.plans.delete(key);
      this.say(`${what} changed before the answer (412): planned again`);
    } else if (response.status === 409) {
      this.answered.add(key);
      this.say(`${what} takes no answer (409 ${await errorCodeOf(response)})`);
    } else {
      this.report(key, `${what}: the answer was refused (${response.status} ${await errorCodeOf(response)}); trying again`);
    }
  }

  private async waitingTasks(): Promise<ClinicTaskSummary[]> {
    const response = await this.call('/api/v1/clinic/tasks?state=new&_count=1000');
    if (response.status !== 200) throw new Error(`the list of waiting Tasks answered ${response.status}`);
    return ClinicTaskList.parse(await response.json()).items.filter((task) => task.status === 'requested');
  }

  /** A call with the clinic's access token, logging in first, and again once when the token was refused. */
  private async call(path: string, init: RequestInit = {}): Promise<Response> {
    for (let attempt = 0; ; attempt += 1) {
      this.token ??= await this.login();
      const response = await fetch(`${this.options.gatewayUrl}${path}`, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${this.token}` },
        signal: AbortSignal.timeout(10_000),
      });
      if (response.status !== 401 || attempt > 0) return response;
      await response.body?.cancel();
      this.token = undefined;
    }
  }

  private async login(): Promise<string> {
    const { username } = this.clinic;
    const response = await fetch(`${this.options.gatewayUrl}/api/v1/token/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password: sandboxPassword(username) }),
      signal: AbortSignal.timeout(10_000),
    });
    if (response.status !== 200) throw new Error(`the login of ${username} answered ${response.status}`);
    return ((await response.json()) as { accessToken: string }).accessToken;
  }

  private report(key: string, line: string): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.say(line);
  }

  private say(line: string): void {
    this.options.log(`${this.clinic.ik} ${this.clinic.username}: ${line}`);
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }
}

async function errorCodeOf(response: Response): Promise<string> {
  const body = (await response.json().catch(() => ({}))) as { error?: unknown };
  return typeof body.error === 'string' ? body.error : 'error';
}
