export * from './api-paths';
export * from './auth';
export * from './errors';
export * from './fields';
export * from './payments';
export * from './users';
