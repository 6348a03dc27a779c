import type { Request, Response } from 'express';
import { z } from 'zod';
import type { Bundle } from '@medplum/fhirtypes';
import type { ClinicRecord, FhirTask } from '@bedrequest/contracts';
import { formOfBundle, type RequestForm } from '@bedrequest/fhir-model';
import { HttpError } from '@bedrequest/http';
import { apiCallOf } from '../inbox/inbox-context';
import { placementsOf, requestOf, type Placement } from './placements';
import { hospitalApiOf, type WorkspaceContext } from './workspace-context';

/** The Tasks a page reads at most: with up to five clinics a request, the last hundred or so requests. */
export const LIST_READ = 500;

const TaskId = z.guid();

/**
 * The request of the Task `:taskId` names, with all its clinics' Tasks and the registry's clinics,
 * read with the person's token; not found (404) for a Task of another party, whatever the URL.
 */
export async function placementOfTask(
  context: WorkspaceContext,
  req: Request,
  res: Response,
): Promise<{ placement: Placement; clinics: ReadonlyMap<string, ClinicRecord> }> {
  const notFound = () => new HttpError('not_found', context.texts.errors.notFound);
  const taskId = String(req.params.taskId);
  if (!TaskId.safeParse(taskId).success) throw notFound();
  const api = hospitalApiOf(context, req, res);
  const task = await api.task(taskId);
  if (!task) throw notFound();
  const [{ tasks }, clinics] = await Promise.all([
    api.tasks(new URLSearchParams({ 'based-on': requestOf(task), _count: String(LIST_READ) })),
    clinicsOf(context, req, res),
  ]);
  const [placement] = placementsOf(tasks);
  if (!placement) throw notFound();
  return { placement, clinics };
}

/** The registry's clinics by IK, for their names. */
export async function clinicsOf(context: WorkspaceContext, req: Request, res: Response): Promise<ReadonlyMap<string, ClinicRecord>> {
  const { items } = await context.api.clinics(apiCallOf(req, res));
  return new Map(items.map((clinic) => [clinic.ik, clinic]));
}

/**
 * The request of `task` as the party last sent it, read back (docs/api.md, "Reading a request back")
 * into the request form; not found (404) once erased or for none the party owns.
 */
export async function sentFormOf(context: WorkspaceContext, req: Request, res: Response, task: FhirTask | undefined): Promise<RequestForm> {
  const sent = task && (await hospitalApiOf(context, req, res).readBack(requestOf(task)));
  if (!sent || sent === 'erased') throw new HttpError('not_found', context.texts.errors.notFound);
  return formOfBundle(sent as Bundle, { profileBase: context.profileBase });
}
