export { bundleSummaryOf, type BundleSummary } from './bundle-summary';
export { ClinicTaskListQuery, DEFAULT_LIST_SIZE, MAX_LIST_SIZE } from './clinic-task-list-query';
export { ClinicTaskReadsRepository } from './clinic-task-reads.repository';
export { ClinicTaskReadsService } from './clinic-task-reads.service';
export { ClinicTaskHistoryReads, clinicTaskHistoryRouter } from './clinic-task-history';
export { ClinicTaskReferrers, clinicTaskReferrerRouter } from './clinic-task-referrer';
export { clinicTasksRouter } from './clinic-tasks.router';
