export {
  DEAD_LETTER_QUEUES,
  intakeDeadLetters,
  IntakeDeadLetters,
  type DeadLetterListing,
  type DeadLetterOutcome,
  type DeadLetterSelection,
  type DeadLetterSummary,
  type IntakeDeadLettersOptions,
} from './dead-letters.service';
