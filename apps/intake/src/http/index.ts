export { internalRouter } from './internal.router';
