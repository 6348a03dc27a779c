export { ClinicDirectory, ClinicDirectoryUnavailableError, loadClinicsFrom, type BroadcastSubscriber, type ClinicDirectoryOptions } from './clinic-directory';
export { DEPARTMENTS } from './departments';
export {
  automaticAnswerNotes,
  declineNote,
  declineReason,
  departmentLabel,
  SPECIALTY_NAMES,
  type AnsweringClinic,
  type DeclineReason,
} from './automatic-answers';
