export { ClinicWorkspaceRepository, type WorkspaceTask } from './clinic-workspace.repository';
export { ClinicWorkspaceService } from './clinic-workspace.service';
export { clinicWorkspaceRouter } from './clinic-workspace.router';
