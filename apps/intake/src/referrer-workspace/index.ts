export { ReferrerWorkspaceRepository } from './referrer-workspace.repository';
export { ReferrerWorkspaceService } from './referrer-workspace.service';
export { referrerWorkspaceRouter } from './referrer-workspace.router';
