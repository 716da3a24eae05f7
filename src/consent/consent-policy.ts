import { Injectable } from '@nestjs/common';
import { RecipientHasher } from '../common/recipient-hasher';
import { ALLOW, PolicyDecision, PolicySubject, SendPolicy } from '../messaging/policy/send-policy';
import { SendingHours } from './compliance/sending-hours.service';
import { DndRepository } from './dnd.repository';
import { policyRecipient } from './recipient-key';
import { SuppressionsRepository } from './suppressions.repository';

const OPTED_OUT: PolicyDecision = { kind: 'refuse', code: 'RECIPIENT_OPTED_OUT' };
const ON_DND: PolicyDecision = {
  kind: 'refuse',
  code: 'RECIPIENT_OPTED_OUT',
  why: "is on the platform's do-not-disturb list: marketing messages to it are refused",
};
const PHONE = /^\+\d{6,15}$/;

/**
 * The consent step of the send pipeline (the SEND_POLICY port). A message is refused
 * RECIPIENT_OPTED_OUT when the account's suppression list holds its recipient for its channel (or
 * `all`) with scope `all`, or with scope `marketing` and the message is marketing; or when it is a
 * marketing message to a number on the platform's DND list. Verification codes are never
 * marketing. Cost: one indexed read per account in the list, plus one on the DND list when a
 * subject is marketing to a phone number (a bulk window: two reads at most). Allowed marketing
 * outside the sending hours is held until the window opens (SendingHours: one more read per account).
 */
@Injectable()
export class ConsentPolicy implements SendPolicy {
  constructor(
    private readonly suppressions: SuppressionsRepository,
    private readonly dnd: DndRepository,
    private readonly hasher: RecipientHasher,
    private readonly hours: SendingHours,
  ) {}

  async decide(subjects: readonly PolicySubject[]): Promise<PolicyDecision[]> {
    if (subjects.length === 0) return [];
    const recipients = subjects.map((s) => policyRecipient(s.recipient));
    const marketing = subjects.map((s) => s.purpose === 'marketing' && s.origin !== 'verification');
    const hashes = subjects.map((s, i) => this.hasher.hash(s.accountId, recipients[i]));
    const blocked = new Set<string>(); // `${accountId}|${hash}|${channel}|${scope}`
    for (const accountId of new Set(subjects.map((s) => s.accountId))) {
      const mine = subjects.flatMap((s, i) => (s.accountId === accountId ? [i] : []));
      const channels = [...new Set(mine.map((i) => subjects[i].channel as string)), 'all'];
      const hits = await this.suppressions.hits(accountId, [...new Set(mine.map((i) => hashes[i]))], channels);
      for (const h of hits) blocked.add(`${accountId}|${h.recipientHash}|${h.channel}|${h.scope}`);
    }
    const dndCandidates = [...new Set(recipients.filter((r, i) => marketing[i] && PHONE.test(r)))];
    const listed = await this.dnd.listed(dndCandidates);
    const decisions = subjects.map((s, i) => {
      const key = (channel: string, scope: string) => blocked.has(`${s.accountId}|${hashes[i]}|${channel}|${scope}`);
      if (key(s.channel, 'all') || key('all', 'all')) return OPTED_OUT;
      if (!marketing[i]) return ALLOW;
      if (key(s.channel, 'marketing') || key('all', 'marketing')) return OPTED_OUT;
      return listed.has(recipients[i]) ? ON_DND : ALLOW;
    });
    return this.withSendingHours(subjects, decisions, marketing);
  }

  /** Allowed marketing outside the account's window (recipient's local time) is held until it opens. */
  private async withSendingHours(
    subjects: readonly PolicySubject[],
    decisions: PolicyDecision[],
    marketing: boolean[],
  ): Promise<PolicyDecision[]> {
    const judged = subjects.flatMap((s, i) => (marketing[i] && decisions[i].kind === 'allow' ? [i] : []));
    if (!judged.length) return decisions;
    const holds = await this.hours.holds(judged.map((i) => ({ ...subjects[i], purpose: 'marketing' as const })));
    judged.forEach((i, k) => {
      const until = holds[k];
      if (until !== null) decisions[i] = { kind: 'hold', until: new Date(until) };
    });
    return decisions;
  }
}
