export * from './auth';
export * from './endpoint';
export * from './endpoints';
export * from './errors';
export * from './fields';
export * from './payments';
export * from './routes';
export * from './users';
