// Every migration, in order. One per change; the same files run on SQLite and MySQL/MariaDB.
import { Foundation1732000000000 } from './1732000000000-foundation';
import { Messaging1732000001000 } from './1732000001000-messaging';
import { Verification1732000001500 } from './1732000001500-verification';
import { Templates1732000002000 } from './1732000002000-templates';
import { Senders1732000003000 } from './1732000003000-senders';
import { Webhooks1732000004000 } from './1732000004000-webhooks';
import { ChatappWeb1732000005000 } from './1732000005000-chatapp-web';
import { Bulk1732000006000 } from './1732000006000-bulk';
import { MessageHandoff1732000007000 } from './1732000007000-message-handoff';
import { VerificationPurge1732000008000 } from './1732000008000-verification-purge';
import { BulkOrphans1732000009000 } from './1732000009000-bulk-orphans';
import { LongText1732000010000 } from './1732000010000-long-text';
import { SandboxOfficialTemplates1732000012000 } from './1732000012000-sandbox-official-templates';
import { SandboxDelayFaults1732000016000 } from './1732000016000-sandbox-delay-faults';
import { ApiKeyNames1732000017000 } from './1732000017000-api-key-names';
import { SmsSegments1732000030000 } from './1732000030000-sms-segments';
import { EventEndpoints1732000040000 } from './1732000040000-event-endpoints';
import { MessageLifecycle1732000050000 } from './1732000050000-message-lifecycle';
import { InboundSms1732000060000 } from './1732000060000-inbound-sms';
import { MessagesBulkDelivery1732000070000 } from './1732000070000-messages-bulk-delivery';
import { FraudGuard1732000091000 } from './1732000091000-fraud-guard';
import { BulkWindows1732000080000 } from './1732000080000-bulk-windows';
import { GeoPermissions1732000090000 } from './1732000090000-geo-permissions';
import { VerificationDailyCounts1732000095000 } from './1732000095000-verification-daily-counts';
import { Suppressions1732000100000 } from './1732000100000-suppressions';
import { DndList1732000101000 } from './1732000101000-dnd-list';
import { MessagePurpose1732000102000 } from './1732000102000-message-purpose';
import { InboundSmsParts1732000110000 } from './1732000110000-inbound-sms-parts';
import { KeywordSettings1732000111000 } from './1732000111000-keyword-settings';
import { SmsSenderType1732000120000 } from './1732000120000-sms-sender-type';
import { ComplianceSettings1732000121000 } from './1732000121000-compliance-settings';
import { BulkQuietUntil1732000122000 } from './1732000122000-bulk-quiet-until';
import { Retention1732000130000 } from './1732000130000-retention';
import { ErasureLookups1732000140000 } from './1732000140000-erasure-lookups';
import { Erasures1732000141000 } from './1732000141000-erasures';
import { AuditEvents1732000142000 } from './1732000142000-audit-events';
import { MessagesExport1732000143000 } from './1732000143000-messages-export';
import { TestModeInstantReceipts1732000150000 } from './1732000150000-test-mode-instant-receipts';
import { MessagesIndexTrim1732000160000 } from './1732000160000-messages-index-trim';
import { MessagesCountedStatus1732000170000 } from './1732000170000-messages-counted-status';

export const MIGRATIONS = [
  Foundation1732000000000,
  Messaging1732000001000,
  Verification1732000001500,
  Templates1732000002000,
  Senders1732000003000,
  Webhooks1732000004000,
  ChatappWeb1732000005000,
  Bulk1732000006000,
  MessageHandoff1732000007000,
  VerificationPurge1732000008000,
  BulkOrphans1732000009000,
  LongText1732000010000,
  SandboxOfficialTemplates1732000012000,
  SandboxDelayFaults1732000016000,
  ApiKeyNames1732000017000,
  SmsSegments1732000030000,
  EventEndpoints1732000040000,
  MessageLifecycle1732000050000,
  InboundSms1732000060000,
  MessagesBulkDelivery1732000070000,
  BulkWindows1732000080000,
  GeoPermissions1732000090000,
  FraudGuard1732000091000,
  VerificationDailyCounts1732000095000,
  Suppressions1732000100000,
  DndList1732000101000,
  MessagePurpose1732000102000,
  InboundSmsParts1732000110000,
  KeywordSettings1732000111000,
  SmsSenderType1732000120000,
  ComplianceSettings1732000121000,
  BulkQuietUntil1732000122000,
  Retention1732000130000,
  ErasureLookups1732000140000,
  Erasures1732000141000,
  AuditEvents1732000142000,
  MessagesExport1732000143000,
  TestModeInstantReceipts1732000150000,
  MessagesIndexTrim1732000160000,
  MessagesCountedStatus1732000170000,
];
