import { z } from 'zod';
import {
  MAX_REFERRER_DRAFTS,
  type CaseNumberInput,
  type CaseNumberList,
  type CaseNumberSearch,
  type CaseNumberView,
  type DraftInput,
  type DraftList,
  type DraftSummary,
  type DraftView,
} from '@bedrequest/contracts';
import { erasedMessage } from '@bedrequest/fhir-model';
import { HttpError } from '@bedrequest/http';
import { ownsRequest, type Caller, type ReferrerViewer } from '../access';
import type { ReferrerPerson, ReferrerWorkspaceRepository, StoredCaseNumber, StoredDraft } from './referrer-workspace.repository';

export type ReferrerCaller = Caller & { viewer: ReferrerViewer };

/**
 * A hospital's own data about its requests (docs/api.md, "The hospital's own data: case numbers and
 * drafts"): its case number per request and its drafts of new requests. Everything belongs to the
 * caller's party and is read and written for it alone: another party's draft is not found, its case
 * numbers are never among the results. None of it reaches a clinic.
 */
export class ReferrerWorkspaceService {
  constructor(
    private readonly store: ReferrerWorkspaceRepository,
    private readonly options: { now?: () => Date; maxDrafts?: number } = {},
  ) {}

  /**
   * Sets or (with `null`) removes the case number of the request `identifier`, whether intake holds
   * the request yet or not (its bundle is stored after the 202). A request of the party whose
   * patient data was erased takes none: 410.
   */
  async setCaseNumber(input: CaseNumberInput, caller: ReferrerCaller): Promise<CaseNumberView> {
    const partyId = caller.viewer.partyId;
    const erasure = await this.store.erasureOf(input.identifier);
    if (erasure && ownsRequest(partyId, erasure)) throw new HttpError('gone', erasedMessage(erasure.erasedAt));
    const now = this.now();
    if (input.caseNumber === null) {
      await this.store.removeCaseNumber(partyId, input.identifier);
      return { identifier: input.identifier, caseNumber: null, updatedAt: now.toISOString(), ...nameOf(personFrom(caller)) };
    }
    return caseNumberView(await this.store.setCaseNumber(partyId, input.identifier, input.caseNumber, personFrom(caller), now));
  }

  async searchCaseNumbers(search: CaseNumberSearch, caller: ReferrerCaller): Promise<CaseNumberList> {
    const partyId = caller.viewer.partyId;
    const found =
      'caseNumber' in search
        ? await this.store.findByCaseNumber(partyId, search.caseNumber)
        : await this.store.findByIdentifiers(partyId, [...new Set(search.identifiers)]);
    return { items: found.map((stored) => ({ ...caseNumberView(stored), caseNumber: stored.caseNumber })) };
  }

  async createDraft(input: DraftInput, caller: ReferrerCaller): Promise<DraftView> {
    const max = this.options.maxDrafts ?? MAX_REFERRER_DRAFTS;
    const stored = await this.store.createDraft(caller.viewer.partyId, input, personFrom(caller), max, this.now());
    if (!stored) throw new HttpError('conflict', `your party keeps ${max} drafts already: delete one (or send it) before saving another`);
    return { ...draftSummary(stored), content: input.content };
  }

  async updateDraft(id: string, input: DraftInput, caller: ReferrerCaller): Promise<DraftView> {
    const stored = isDraftId(id) ? await this.store.updateDraft(caller.viewer.partyId, id, input, personFrom(caller), this.now()) : undefined;
    if (!stored) throw noSuchDraft();
    return { ...draftSummary(stored), content: input.content };
  }

  async listDrafts(caller: ReferrerCaller): Promise<DraftList> {
    return { items: (await this.store.listDrafts(caller.viewer.partyId)).map(draftSummary) };
  }

  async readDraft(id: string, caller: ReferrerCaller): Promise<DraftView> {
    const stored = isDraftId(id) ? await this.store.readDraft(caller.viewer.partyId, id) : undefined;
    if (!stored) throw noSuchDraft();
    return { ...draftSummary(stored), content: stored.content };
  }

  async deleteDraft(id: string, caller: ReferrerCaller): Promise<void> {
    if (!isDraftId(id) || !(await this.store.deleteDraft(caller.viewer.partyId, id))) throw noSuchDraft();
  }

  private now(): Date {
    return (this.options.now ?? (() => new Date()))();
  }
}

/** A malformed id is not found, as an unknown one: the answer says nothing about which it was. */
function isDraftId(id: string): boolean {
  return z.uuid().safeParse(id).success;
}

function noSuchDraft(): HttpError {
  return new HttpError('not_found', 'no such draft');
}

function personFrom(caller: Caller): ReferrerPerson {
  return { user: caller.user, ...(caller.userName === undefined ? {} : { name: caller.userName }) };
}

function nameOf(person: ReferrerPerson): { updatedByName?: string } {
  return person.name === undefined ? {} : { updatedByName: person.name };
}

function caseNumberView(stored: StoredCaseNumber): CaseNumberView {
  return { identifier: stored.identifier, caseNumber: stored.caseNumber, updatedAt: stored.updatedAt.toISOString(), ...nameOf(stored.by) };
}

function draftSummary(stored: StoredDraft): DraftSummary {
  return {
    id: stored.id,
    ...(stored.label === undefined ? {} : { label: stored.label }),
    savedAt: stored.savedAt.toISOString(),
    ...(stored.by.name === undefined ? {} : { savedByName: stored.by.name }),
  };
}
