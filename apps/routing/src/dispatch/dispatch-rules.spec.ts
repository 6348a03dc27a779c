import type { HeldBed } from '../beds/bed-count';
import { afterHoldAttempt, afterReserveAttempt, planTask, type DispatchedRequest, type DispatchedTask, type RegisteredClinic } from './dispatch-rules';

const TASK_ID = '7c1c3d8e-5b8a-4f62-9d0f-2a1e6f3b9c10';
const request = (overrides: Partial<DispatchedRequest> = {}): DispatchedRequest => ({
  requestIdentifier: 'https://referrer.example/fhir/ServiceRequest/1',
  version: 1,
  change: 'created',
  departmentCode: '2300',
  specialty: 'orthopedics',
  occurrenceDate: '2026-12-01',
  ...overrides,
});
const task = (action: DispatchedTask['action'] = 'answer-requested'): DispatchedTask => ({ taskId: TASK_ID, clinicIk: '510000001', action });
const clinic = (overrides: Partial<RegisteredClinic> = {}): RegisteredClinic => ({
  ik: '510000001',
  departments: ['2300', '0300'],
  automaticAnswers: false,
  ...overrides,
});
const held = (overrides: Partial<HeldBed> = {}): HeldBed => ({
  taskId: TASK_ID,
  clinicIk: '510000001',
  departmentCode: '2300',
  admissionDate: '2026-12-01',
  state: 'held',
  ...overrides,
});

describe('what routing does for a clinic asked to answer', () => {
  it('records a decline intake already made, releasing a held bed and answering nothing itself', () => {
    const declined = { ...task(), declined: 'department-not-offered' as const };
    expect(planTask(request({ version: 2 }), declined, clinic({ automaticAnswers: true }), held())).toEqual({
      kind: 'declined-by-intake',
      outcome: 'declined-department-not-offered',
      releaseBed: true,
    });
    expect(planTask(request(), { ...task(), declined: 'not-participating' as const }, undefined, undefined)).toEqual({
      kind: 'declined-by-intake',
      outcome: 'declined-not-participating',
      releaseBed: false,
    });
  });

  it('declines nothing itself: a clinic intake did not decline is notified, whatever the registry here says of it', () => {
    const forwarded = { kind: 'notify', outcome: 'forwarded', releaseBed: false };
    expect(planTask(request(), task(), clinic({ departments: ['0300'] }), undefined)).toEqual(forwarded);
    expect(planTask(request(), task(), undefined, undefined)).toEqual(forwarded);
  });

  it('only notifies a clinic that offers the department and answers itself', () => {
    expect(planTask(request(), task(), clinic(), undefined)).toEqual({ kind: 'notify', outcome: 'forwarded', releaseBed: false });
  });

  it('tries to hold a bed for the requested department and date when the clinic answers automatically', () => {
    expect(planTask(request(), task(), clinic({ automaticAnswers: true }), undefined)).toEqual({
      kind: 'hold',
      bed: { clinicIk: '510000001', departmentCode: '2300', admissionDate: '2026-12-01' },
      releaseBed: false,
    });
  });

  it('leaves a request without admission date to the clinic, even with automatic answers', () => {
    expect(planTask(request({ occurrenceDate: undefined }), task(), clinic({ automaticAnswers: true }), undefined)).toEqual({
      kind: 'notify',
      outcome: 'forwarded-no-date',
      releaseBed: false,
    });
  });

  it('keeps the bed of a supplemented request that still asks for it, and accepts again without holding twice', () => {
    const plan = planTask(request({ version: 2, change: 'supplemented' }), task(), clinic({ automaticAnswers: true }), held());
    expect(plan).toMatchObject({ kind: 'answer', outcome: 'accepted-bed-kept', answer: 'accepted', releaseBed: false });
  });

  it('gives back the held bed and tries the new date when a supplement moves the admission date', () => {
    const plan = planTask(request({ version: 2, occurrenceDate: '2026-12-08' }), task(), clinic({ automaticAnswers: true }), held());
    expect(plan).toEqual({ kind: 'hold', bed: { clinicIk: '510000001', departmentCode: '2300', admissionDate: '2026-12-08' }, releaseBed: true });
  });

  it('keeps the held bed of a clinic that switched automatic answers off: the clinic decides', () => {
    expect(planTask(request({ version: 2 }), task(), clinic(), held())).toEqual({ kind: 'notify', outcome: 'forwarded', releaseBed: false });
  });
});

describe('the answer after an attempt to hold a bed', () => {
  const bed = { clinicIk: '510000001', departmentCode: '2300', admissionDate: '2026-12-01' };

  it('accepts when a bed was held', () => {
    expect(afterHoldAttempt(request(), bed, 'held')).toMatchObject({ kind: 'answer', answer: 'accepted', outcome: 'accepted-bed-held' });
  });

  it('declines with the date in the note when no bed is free', () => {
    expect(afterHoldAttempt(request(), bed, 'no-free-bed', { ik: '510000001', name: 'Reha-Klinik Am Waldsee' })).toMatchObject({
      kind: 'answer',
      answer: 'declined',
      note: 'Reha-Klinik Am Waldsee: Absage für Orthopädie (2300) zum 01.12.2026 – automatisch aus den veröffentlichten Bettenzahlen, kein Bett frei.',
    });
  });

  it('leaves the answer to the clinic when it published no count for that department and date', () => {
    expect(afterHoldAttempt(request(), bed, 'no-bed-count')).toEqual({ kind: 'notify', outcome: 'forwarded-no-bed-count', releaseBed: false });
  });
});

describe('beds on selection and cancellation', () => {
  it('reserves the bed the selected clinic holds', () => {
    expect(planTask(request({ change: 'selected' }), task('selected'), clinic(), held())).toEqual({ kind: 'reserve', outcome: 'selected-bed-reserved' });
  });

  it("reserves a bed of the request's department and date for a selected clinic that accepted by hand", () => {
    expect(planTask(request({ change: 'selected' }), task('selected'), clinic(), undefined)).toEqual({
      kind: 'reserve-new',
      bed: { clinicIk: '510000001', departmentCode: '2300', admissionDate: '2026-12-01' },
    });
  });

  it('reserves nothing for a selection without admission date', () => {
    expect(planTask(request({ change: 'selected', occurrenceDate: undefined }), task('selected'), clinic(), undefined)).toEqual({
      kind: 'notify',
      outcome: 'selected-no-date',
      releaseBed: false,
    });
  });

  it('logs a reservation past the count as over-booked and one without a count as nothing reserved', () => {
    expect(afterReserveAttempt('reserved')).toEqual({ kind: 'notify', outcome: 'selected-bed-reserved', releaseBed: false });
    expect(afterReserveAttempt('overbooked')).toEqual({ kind: 'notify', outcome: 'selected-bed-overbooked', releaseBed: false });
    expect(afterReserveAttempt('no-bed-count')).toEqual({ kind: 'notify', outcome: 'selected-no-bed-count', releaseBed: false });
  });

  it('does not reserve twice', () => {
    expect(planTask(request({ change: 'selected' }), task('selected'), clinic(), held({ state: 'reserved' }))).toMatchObject({
      kind: 'notify',
      releaseBed: false,
    });
  });

  it.each(['revoked', 'selected', 'selection-withdrawn', 'supplemented'] as const)(
    'releases a held or reserved bed when the Task is cancelled (%s)',
    (change) => {
      for (const state of ['held', 'reserved'] as const) {
        expect(planTask(request({ change }), task('cancelled'), clinic(), held({ state }))).toEqual({
          kind: 'notify',
          outcome: 'cancelled-bed-released',
          releaseBed: true,
        });
      }
    },
  );

  it('only notifies a cancelled Task without a bed', () => {
    expect(planTask(request({ change: 'revoked' }), task('cancelled'), clinic(), undefined)).toEqual({
      kind: 'notify',
      outcome: 'cancelled',
      releaseBed: false,
    });
  });
});
