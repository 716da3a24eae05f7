export * from './api-errors.decorator';
export * from './api-livemode.decorator';
export * from './api-multipart.decorator';
export * from './api-schema-rules.decorator';
export * from './api-success.decorator';
export * from './document';
export * from './setup';
