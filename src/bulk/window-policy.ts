import type { SendPolicy } from '../messaging/policy/send-policy';
import type { WindowPause } from './row-outcomes';
import type { WindowItem } from '../messaging/window-sender';
import { ClaimedRow, SettledRow, takenOf, TakenRow } from './window-rows';
import type { AccountId } from '../common/account-id';

/** A window's rows at its end: settled, held `sending`, put back unpaid, deferred for the sending hours. */
export interface WindowRows {
  outcomes: SettledRow[];
  held: TakenRow[];
  unsent: TakenRow[];
  deferred: TakenRow[];
  pause: WindowPause | null;
}

/** A window's rows after the send policy: what goes now, what it refused, what waits for the sending hours. */
export interface JudgedWindow {
  items: WindowItem[];
  taken: ClaimedRow[];
  /** Settled `failed` with the policy's code, unpaid. */
  refused: SettledRow[];
  /** Marketing outside the sending hours: back to `pending`, sent once the window opens. */
  deferred: TakenRow[];
  /** The earliest time a deferred row may go (null: none deferred). */
  quietUntil: number | null;
}

/**
 * The send policy for a window's rows in one call (one query per window, not per row); `items[i]` is
 * the validated message of `taken[i]`.
 */
export async function judgeWindow(
  policy: SendPolicy,
  accountId: AccountId,
  items: WindowItem[],
  taken: ClaimedRow[],
  now: number,
): Promise<JudgedWindow> {
  const out: JudgedWindow = { items: [], taken: [], refused: [], deferred: [], quietUntil: null };
  if (!items.length) return out;
  const decisions = await policy.decide(
    items.map(({ msg }) => ({
      accountId,
      channel: msg.channel,
      recipient: msg.to,
      purpose: msg.purpose ?? 'transactional',
      senderName: msg.sender,
      origin: 'bulk' as const,
    })),
  );
  decisions.forEach((d, i) => {
    if (d.kind === 'allow') {
      out.items.push(items[i]);
      out.taken.push(taken[i]);
    } else if (d.kind === 'refuse') {
      out.refused.push({
        ...takenOf(taken[i]),
        status: 'failed',
        code: d.code,
        message: `${items[i].msg.to.slice(0, 40)} has opted out of these messages`,
        at: now,
      });
    } else {
      out.deferred.push(takenOf(taken[i]));
      const until = d.until.getTime();
      out.quietUntil = out.quietUntil === null ? until : Math.min(out.quietUntil, until);
    }
  });
  return out;
}
