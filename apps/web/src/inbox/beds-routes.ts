import { Router, type Request, type Response } from 'express';
import { apiCallOf, clinicIkOf, pageContextOf, sendPage, type InboxContext } from './inbox-context';
import { bedsPage, dayLabel, weekdayOf, type BedsView } from './pages/beds.page';

const DAY_MS = 86_400_000;
const DEFAULT_DAYS = 14;
const MAX_DAYS = 31;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** What a render adds to the counts: refused input, a message, or the confirmation of the switch just saved. */
interface RenderExtra {
  entered?: BedsView['entered'];
  fill?: BedsView['fill'];
  flash?: BedsView['flash'];
  confirmSwitch?: boolean;
  confirmVisibility?: boolean;
}

/**
 * The beds page: the clinic's bed counts per department and day, its automatic answers and whether
 * referrers see its free beds (the capacity API), editable.
 */
export function bedsRoutes(context: InboxContext): Router {
  const router = Router();
  const { texts } = context;

  router.get('/beds', async (req, res) => {
    const range = rangeOf(req.query.from, req.query.to, texts.timeZone);
    const count = (value: unknown) => (typeof value === 'string' && /^\d{1,3}$/.test(value) ? Number(value) : undefined);
    const saved = count(req.query.saved);
    const filled = count(req.query.filled);
    // What the last save did, in one message: the numbers typed, the range filled (the setting's confirmation is added in render).
    const parts = [
      ...(filled !== undefined ? [filled > 0 ? texts.beds.fill.filled(filled) : texts.beds.fill.none] : []),
      ...(saved !== undefined && saved > 0 ? [texts.beds.saved(saved)] : []),
    ];
    const flash: BedsView['flash'] = !range
      ? { kind: 'error', message: texts.beds.rangeInvalid }
      : parts.length
        ? { kind: 'success', message: parts.join(' ') }
        : saved === 0 && req.query.switched !== '1' && req.query.shown !== '1'
          ? { kind: 'info', message: texts.beds.unchanged }
          : undefined;
    await render(req, res, range ?? defaultRange(texts.timeZone), {
      ...(flash ? { flash } : {}),
      confirmSwitch: req.query.switched === '1',
      confirmVisibility: req.query.shown === '1',
    });
  });

  // The grid, the range fill and the two switches are one form (pages/beds.page.ts): each
  // button saves the numbers typed in the grid first, so that none is lost, then does its own part.
  router.post('/beds', (req, res) => save(req, res, 'counts'));
  router.post('/beds/auto-answer', (req, res) => save(req, res, 'switch'));
  router.post('/beds/fill', (req, res) => save(req, res, 'fill'));
  router.post('/beds/visibility', (req, res) => save(req, res, 'visibility'));

  async function save(req: Request, res: Response, button: 'counts' | 'switch' | 'fill' | 'visibility'): Promise<void> {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const range = rangeOf(body.from, body.to, texts.timeZone) ?? defaultRange(texts.timeZone);
    const call = apiCallOf(req, res);
    const fillEntered = Object.fromEntries(
      Object.entries(body).filter((entry): entry is [string, string] => entry[0].startsWith('fill.') && typeof entry[1] === 'string'),
    );
    const choice = body.automaticAnswers;
    if (button === 'switch' && choice !== 'on' && choice !== 'off') {
      return render(req, res, range, { flash: { kind: 'error', message: texts.beds.autoAnswer.choose } }, 400);
    }
    const shown = body.shownToReferrers;
    if (button === 'visibility' && shown !== 'on' && shown !== 'off') {
      return render(req, res, range, { flash: { kind: 'error', message: texts.beds.visibility.choose } }, 400);
    }
    const clinic = await context.clinics.find(clinicIkOf(res), call);
    const departments = new Map(clinic?.departments.map((department) => [department.code, department] as const));
    const labelOf = (code: string) => {
      const department = departments.get(code);
      return department ? `${texts.specialty[department.specialty] ?? department.display} (${code})` : code;
    };
    const changes: { name: string; department: string; date: string; value: string }[] = [];
    for (const [name, raw] of Object.entries(body)) {
      const [, department, date] = /^beds\.(\d{4})\.(\d{4}-\d{2}-\d{2})$/.exec(name) ?? [];
      if (!department || !date || typeof raw !== 'string' || !departments.has(department)) continue;
      const value = raw.trim();
      if (value === '' || value === String(body[`was.${name}`] ?? '')) continue;
      changes.push({ name, department, date, value });
    }
    changes.sort((a, b) => a.date.localeCompare(b.date) || a.department.localeCompare(b.department));
    const entered = Object.fromEntries(changes.map((change) => [change.name, change.value]));
    if (changes.some((change) => !/^\d{1,6}$/.test(change.value))) {
      return render(req, res, range, { entered, fill: fillEntered, flash: { kind: 'error', message: texts.beds.invalid } }, 400);
    }
    const fill = button === 'fill' ? fillOf(body, departments) : undefined;
    if (button === 'fill' && !fill) {
      return render(req, res, range, { entered, fill: fillEntered, flash: { kind: 'error', message: texts.beds.fill.invalid } }, 400);
    }

    // The typed numbers, then the range, each day in date order; the first refusal stops, so a range
    // beginning on a day gone saves nothing (the service refuses past days: docs/api.md, "Bed counts").
    const writes = [
      ...changes.map((change) => ({ department: change.department, date: change.date, freeBeds: Number(change.value), name: change.name })),
      ...(fill ? fill.days.map((date) => ({ department: fill.department, date, freeBeds: fill.count, name: undefined })) : []),
    ];
    let saved = 0;
    for (const write of writes) {
      const result = await context.api.capacityFor(call).publish({ department: write.department, date: write.date, freeBeds: write.freeBeds });
      if (!result.ok) {
        const cell = `${labelOf(write.department)} am ${dayLabel(texts, write.date)}${write.date.slice(0, 4)}`;
        const left = Object.fromEntries(
          changes.filter((change) => !writes.slice(0, saved).some((done) => done.name === change.name)).map((change) => [change.name, change.value]),
        );
        return render(
          req,
          res,
          range,
          { entered: left, fill: fillEntered, flash: { kind: 'error', message: texts.beds.refused(saved, cell, result.message) } },
          400,
        );
      }
      saved += 1;
    }

    let switched = false;
    if ((choice === 'on' || choice === 'off') && (button === 'switch' || choice !== body['was.automaticAnswers'])) {
      const result = await context.api.capacityFor(call).switchAutomaticAnswers(choice === 'on');
      if (!result.ok) {
        return render(
          req,
          res,
          range,
          { flash: { kind: 'error', message: `${saved ? `${texts.beds.saved(saved)} ` : ''}${texts.beds.autoAnswer.refused} ${result.message}` } },
          400,
        );
      }
      context.automaticAnswers?.remember(clinicIkOf(res), result.enabled);
      switched = true;
    }
    let shownSwitched = false;
    if ((shown === 'on' || shown === 'off') && (button === 'visibility' || shown !== body['was.shownToReferrers'])) {
      const result = await context.api.capacityFor(call).showFreeBeds(shown === 'on');
      if (!result.ok) {
        const before = saved ? `${texts.beds.saved(saved)} ` : '';
        return render(req, res, range, { flash: { kind: 'error', message: `${before}${texts.beds.visibility.refused} ${result.message}` } }, 400);
      }
      shownSwitched = true;
    }
    const outcome = new URLSearchParams(range);
    if (fill) outcome.set('filled', String(fill.days.length));
    outcome.set('saved', String(changes.length));
    if (switched) outcome.set('switched', '1');
    if (shownSwitched) outcome.set('shown', '1');
    res.redirect(303, `/inbox/beds?${outcome.toString()}`);
  }

  async function render(req: Request, res: Response, range: { from: string; to: string }, extra: RenderExtra, status = 200): Promise<void> {
    const call = apiCallOf(req, res);
    const [clinic, counts, automaticAnswers, shownToReferrers] = await Promise.all([
      context.clinics.find(clinicIkOf(res), call),
      context.api.capacityFor(call).read(range),
      context.api.capacityFor(call).automaticAnswers(),
      context.api.capacityFor(call).freeBedsVisibility(),
    ]);
    if (automaticAnswers !== undefined) context.automaticAnswers?.remember(clinicIkOf(res), automaticAnswers);
    // The confirmations state the settings as routing has them now, not as the address claims.
    const confirmations = [
      extra.confirmSwitch && automaticAnswers !== undefined ? texts.beds.autoAnswer.saved(automaticAnswers) : undefined,
      extra.confirmVisibility && shownToReferrers !== undefined ? texts.beds.visibility.saved(shownToReferrers) : undefined,
    ].filter((text) => text !== undefined);
    const confirmation = confirmations.length ? confirmations.join(' ') : undefined;
    const flash: BedsView['flash'] =
      extra.flash && confirmation && extra.flash.kind === 'success'
        ? { kind: 'success', message: `${extra.flash.message} ${confirmation}` }
        : (extra.flash ?? (confirmation ? { kind: 'success', message: confirmation } : undefined));
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
      today: todayIn(texts.timeZone),
      ...range,
      counts: counts?.items ?? [],
      ...(counts ? {} : { notParticipating: true }),
      formats: context.formats,
      previous: shifted(-span),
      next: shifted(span),
      ...(extra.entered ? { entered: extra.entered } : {}),
      ...(extra.fill ? { fill: extra.fill } : {}),
      ...(flash ? { flash } : {}),
      ...(automaticAnswers === undefined ? {} : { automaticAnswers }),
      ...(shownToReferrers === undefined ? {} : { shownToReferrers }),
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

/** Today in the clinic's time zone, the first day counts are published for (en-CA formats YYYY-MM-DD). */
function todayIn(timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
}

function defaultRange(timeZone: string): { from: string; to: string } {
  const today = todayIn(timeZone);
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

/**
 * The range form's fields: a department of the clinic, a first and a last day (at most 31 days),
 * a whole number, and whether to skip Saturdays and Sundays; undefined when one is missing or wrong.
 */
function fillOf(body: Record<string, unknown>, departments: ReadonlyMap<string, unknown>): { department: string; days: string[]; count: number } | undefined {
  const department = body['fill.department'];
  const count = typeof body['fill.count'] === 'string' ? body['fill.count'].trim() : '';
  const range = rangeOf(body['fill.from'], body['fill.to'], 'UTC');
  if (typeof department !== 'string' || !departments.has(department) || !/^\d{1,6}$/.test(count) || !range || body['fill.from'] === undefined) return undefined;
  const weekdaysOnly = body['fill.weekdaysOnly'] === '1';
  const days = daysBetween(range.from, range.to).filter((day) => !weekdaysOnly || ![0, 6].includes(weekdayOf(day)));
  return { department, days, count: Number(count) };
}
