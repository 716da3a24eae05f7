// The server's list (src/messaging/events/event-sink.ts); test/console/event-types.e2e-spec.ts keeps them equal.
/** The event types an endpoint can subscribe to (the API also takes `prefix.*` and `*`). */
export const EVENT_TYPES = [
  'message.sent',
  'message.delivered',
  'message.read',
  'message.failed',
  'bulk_job.queued',
  'bulk_job.rejected',
  'bulk_job.paused',
  'bulk_job.completed',
  'bulk_job.cancelled',
  'template.approved',
  'template.rejected',
  'sms_sender.approved',
  'sms_sender.rejected',
  'chatapp_web.message.received',
  'sms.received',
  'verification.fraud_blocked',
  'verification.fraud_unblocked',
  'recipient.opted_out',
  'recipient.opted_in',
  'webhook.test',
] as const;
