export * from './envelope';
export * from './catalog';
export * from './topology';
export * from './messages/admission-bundle-submitted';
export * from './messages/admission-response';
