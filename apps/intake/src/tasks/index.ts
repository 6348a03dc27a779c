export { TaskReadRepository, type SearchedTask, type StoredTask, type TaskPage } from './task-read.repository';
export { TaskReadService, type ClinicRead } from './task-read.service';
export { askedByRuleOf, toFhirTask, type AskedByRule, type ClinicTaskView, type NoteAuthor, type TaskNote } from './task-resource';
export { etagOf, taskTagOf, type TaggedTask } from './task-tag';
export { appendedHistory, HISTORY_LIMIT, historyOf, type StoredHistoryEntry } from './task-history';
