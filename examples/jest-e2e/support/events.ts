import type { Schemas } from '../../../clients/typescript';

/** `data` of `sms.received`: the inbound SMS. */
export interface SmsReceived {
  id: string;
  from: string;
  to: string;
  text: string;
  senderId: string | null;
  receivedAt: string;
}

/** The events these tests subscribe to, and the `data` each carries (the resource as the API shows it). */
export interface EventData {
  'message.delivered': Schemas['MessageResource'];
  'bulk_job.completed': Schemas['BulkJobResource'];
  'sms.received': SmsReceived;
}

export type EventType = keyof EventData;
export const SUBSCRIBED: EventType[] = ['message.delivered', 'bulk_job.completed', 'sms.received'];
