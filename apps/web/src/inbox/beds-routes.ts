import { Router, type Request, type Response } from 'express';
import { apiCallOf, clinicIkOf, pageContextOf, sendPage, type InboxContext } from './inbox-context';
import { bedsPage, type BedsView } from './pages/beds.page';

const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 14;
const MAX_DAYS = 31;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** What a render adds to the counts: refused input, a message, or the confirmation of the switch just saved. */
interface RenderExtra {
  entered?: BedsView['entered'];
  flash?: BedsView['flash'];
  confirmSwitch?: boolean;
}

/** The beds page: the clinic's bed counts per department and day and its automatic answers (the capacity API), editable. */
export function bedsRoutes(context: InboxContext): Router {
  const router = Router();
  const { texts } = context;

  router.get('/beds', async (req, res) => {
    const range = rangeOf(req.query.from, req.query.to, texts.timeZone);
    const saved = Number(req.query.saved);
    const flash: BedsView['flash'] = !range
      ? { kind: 'error', message: texts.beds.rangeInvalid }
      : Number.isInteger(saved) && saved > 0
        ? { kind: 'success', message: texts.beds.saved(saved) }
        : req.query.saved === '0'
          ? { kind: 'info', message: texts.beds.unchanged }
          : undefined;
    await render(req, res, range ?? defaultRange(texts.timeZone), { ...(flash ? { flash } : {}), confirmSwitch: req.query.switched === '1' });
  });

  router.post('/beds/auto-answer', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const range = rangeOf(body.from, body.to, texts.timeZone) ?? defaultRange(texts.timeZone);
    const choice = body.automaticAnswers;
    if (choice !== 'on' && choice !== 'off') return render(req, res, range, { flash: { kind: 'error', message: texts.beds.autoAnswer.choose } }, 400);
    const result = await context.api.switchAutomaticAnswers(choice === 'on', apiCallOf(req, res));
    if (!result.ok) return render(req, res, range, { flash: { kind: 'error', message: `${texts.beds.autoAnswer.refused} ${result.message}` } }, 400);
    res.redirect(303, `/inbox/beds?${new URLSearchParams({ ...range, switched: '1' }).toString()}`);
  });

  router.post('/beds', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const range = rangeOf(body.from, body.to, texts.timeZone) ?? defaultRange(texts.timeZone);
    const call = apiCallOf(req, res);
    const clinic = await context.clinics.find(clinicIkOf(res), call);
    const departments = new Set(clinic?.departments.map((department) => department.code));
    const changes: { name: string; department: string; date: string; value: string }[] = [];
    for (const [name, raw] of Object.entries(body)) {
      const [, department, date] = /^beds\.(\d{4})\.(\d{4}-\d{2}-\d{2})$/.exec(name) ?? [];
      if (!department || !date || typeof raw !== 'string' || !departments.has(department)) continue;
      const value = raw.trim();
      if (value === '' || value === String(body[`was.${name}`] ?? '')) continue;
      changes.push({ name, department, date, value });
    }
    const entered = Object.fromEntries(changes.map((change) => [change.name, change.value]));
    if (changes.some((change) => !/^\d{1,6}$/.test(change.value))) {
      return render(req, res, range, { entered, flash: { kind: 'error', message: texts.beds.invalid } }, 400);
    }
    const results = await Promise.all(
      changes.map((change) => context.api.publishCapacity({ department: change.department, date: change.date, freeBeds: Number(change.value) }, call)),
    );
    const refused = results.find((result) => !result.ok);
    if (refused && !refused.ok) {
      return render(req, res, range, { entered, flash: { kind: 'error', message: `${texts.beds.invalid} (${refused.message})` } }, 400);
    }
    res.redirect(303, `/inbox/beds?${new URLSearchParams({ ...range, saved: String(changes.length) }).toString()}`);
  });

  async function render(req: Request, res: Response, range: { from: string; to: string }, extra: RenderExtra, status = 200): Promise<void> {
    const call = apiCallOf(req, res);
    const [clinic, counts, automaticAnswers] = await Promise.all([
      context.clinics.find(clinicIkOf(res), call),
      context.api.capacity(range, call),
      context.api.automaticAnswers(call),
    ]);
    // The confirmation states the setting as routing has it now, not as the address claims.
    const flash =
      extra.flash ??
      (extra.confirmSwitch && automaticAnswers !== undefined
        ? { kind: 'success' as const, message: texts.beds.autoAnswer.saved(automaticAnswers) }
        : undefined);
    const departments = (clinic?.departments ?? []).map((department) => ({
      code: department.code,
      label: `${texts.specialty[department.specialty] ?? department.display} (${department.code})`,
    }));
    const days = daysBetween(range.from, range.to);
    const span = days.length * DAY_MS;
    const shifted = (by: number) => ({ from: isoDay(Date.parse(range.from) + by), to: isoDay(Date.parse(range.to) + by) });
    const view: BedsView = {
      departments,
      dates: days,
      ...range,
      counts: counts?.items ?? [],
      ...(counts ? {} : { notParticipating: true }),
      formats: context.formats,
      previous: shifted(-span),
      next: shifted(span),
      ...(extra.entered ? { entered: extra.entered } : {}),
      ...(flash ? { flash } : {}),
      ...(automaticAnswers === undefined ? {} : { automaticAnswers }),
    };
    sendPage(res, bedsPage(await pageContextOf(context, req, res), view), status);
  }

  return router;
}

function rangeOf(from: unknown, to: unknown, timeZone: string): { from: string; to: string } | undefined {
  if (from === undefined && to === undefined) return defaultRange(timeZone);
  if (typeof from !== 'string' || typeof to !== 'string' || !DATE.test(from) || !DATE.test(to)) return undefined;
  const start = Date.parse(from);
  const end = Date.parse(to);
  if (Number.isNaN(start) || Number.isNaN(end) || isoDay(start) !== from || isoDay(end) !== to) return undefined;
  if (end < start || (end - start) / DAY_MS >= MAX_DAYS) return undefined;
  return { from, to };
}

function defaultRange(timeZone: string): { from: string; to: string } {
  // Today in the clinic's time zone, as the day the counts are published for (en-CA formats YYYY-MM-DD).
  const today = new Intl.DateTimeFormat('en-CA', { timeZone }).format(new Date());
  return { from: today, to: isoDay(Date.parse(today) + (DEFAULT_DAYS - 1) * DAY_MS) };
}

function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let time = Date.parse(from); time <= Date.parse(to); time += DAY_MS) days.push(isoDay(time));
  return days;
}

function isoDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}
