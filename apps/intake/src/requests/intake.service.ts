import type { ClinicDirectory } from '@bedrequest/clinic-directory';
import type { IntakeVerdictV1 } from '@bedrequest/contracts';
import type { FhirSystems } from '@bedrequest/fhir-model';
import type { AnswerDeadlineRule } from '../deadlines';
import type { AdmissionRequestRepository } from './admission-request.repository';
import { withoutClinics } from './bundle-fingerprint';
import type { FingerprintedCommand, IntakeCommand } from './intake-commands';
import { RequestBatch } from './request-batch';
import type { RequestLimits } from './request-limits';

/**
 * Intake's use cases, a batch of messages at a time: each batch runs in one transaction together
 * with its inbox rows (so a redelivered message gets the same verdict and changes nothing) and the
 * messages it causes (outbox). The gateway validated every bundle against the FHIR field rules and
 * sends what it read (the message contract); intake applies the state rules.
 */
export class IntakeService {
  constructor(
    private readonly repository: AdmissionRequestRepository,
    private readonly clinics: Pick<ClinicDirectory, 'lookup'>,
    private readonly systems: FhirSystems,
    private readonly options: {
      limits?: RequestLimits;
      now?: () => Date;
      /** The parties' default answer deadlines (deadlines/referrer-settings.repository.ts); the service's built-in default without. */
      answerDeadlineRules?: (partyIds: string[]) => Promise<ReadonlyMap<string, AnswerDeadlineRule>>;
    } = {},
  ) {}

  /**
   * Applies a batch (read its state, decide in memory, write it all in one statement; see
   * AdmissionRequestRepository) and returns one verdict per command, in order. A message processed
   * before (a redelivery, or a copy of a message earlier in the batch) gets the verdict recorded the
   * first time and changes nothing.
   */
  async handle(received: readonly IntakeCommand[]): Promise<IntakeVerdictV1[]> {
    const commands = await this.fingerprinted(received);
    const performerIks = [...new Set(commands.flatMap((command) => (command.kind === 'admission' ? command.request.performerIks : [])))];
    // A registry miss may read routing's registry again.
    const clinics = performerIks.length > 0 ? await this.clinics.lookup(performerIks) : new Map();
    const loaded = await this.repository.load({
      identifiers: commands.flatMap((command) =>
        command.kind === 'admission' ? [command.request.identifier] : command.kind === 'document' ? [command.requestIdentifier] : [],
      ),
      taskIds: commands.flatMap((command) => (command.kind === 'answer' ? [command.answer.taskId] : [])),
      messageIds: commands.map((command) => command.meta.messageId),
      documentHashes: commands.flatMap((command) => (command.kind === 'document' ? [command.fingerprint.value] : [])),
    });
    // A new request without a deadline gets its party's default: read only where one may be needed.
    const undated = commands.flatMap((command) => (command.kind === 'admission' && !command.request.answerDeadline ? [command.submitter.partyId] : []));
    const rules =
      undated.length > 0 && this.options.answerDeadlineRules ? await this.options.answerDeadlineRules(undated) : new Map<string, AnswerDeadlineRule>();
    const batch = new RequestBatch(loaded, {
      answerDeadlineRule: (partyId) => rules.get(partyId) ?? undefined,
      clinics,
      systems: this.systems,
      now: (this.options.now ?? (() => new Date()))(),
      ...(this.options.limits ? { limits: this.options.limits } : {}),
    });
    const given = new Map<string, IntakeVerdictV1>();
    const verdicts = commands.map((command): IntakeVerdictV1 => {
      const id = command.meta.messageId;
      if (loaded.verdicts.has(id)) return loaded.verdicts.get(id) ?? { outcome: 'unchanged', issues: [] };
      const earlier = given.get(id);
      if (earlier) return earlier;
      const result = batch.apply(command);
      given.set(id, result);
      return result;
    });
    await this.repository.write(batch.result());
    return verdicts;
  }

  /**
   * The commands with the fingerprints of their bundles, by which a stored bundle is recognised
   * (docs/data-protection.md): one HMAC per bundle, under intake's fingerprint key.
   */
  async fingerprinted(commands: readonly IntakeCommand[]): Promise<FingerprintedCommand[]> {
    if (!commands.some((command) => 'bundle' in command)) return [...commands] as FingerprintedCommand[];
    const fingerprintOf = await this.repository.fingerprinter();
    return commands.map((command) => {
      if (!('bundle' in command)) return command;
      const fingerprint = fingerprintOf(command.bundle);
      return {
        ...command,
        fingerprint: command.kind === 'admission' ? { ...fingerprint, content: fingerprintOf(withoutClinics(command.bundle)).value } : fingerprint,
      };
    });
  }
}
