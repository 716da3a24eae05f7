export * from './api-error';
export * from './error-codes';
export * from './to-envelope';
export * from './error-envelope.filter';
