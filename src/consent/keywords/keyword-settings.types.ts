import type { KeywordKind } from '../../messaging/inbound/inbound-keywords';

export const KEYWORD_KINDS: readonly KeywordKind[] = ['opt_out', 'opt_in', 'help'];

/** A text in the two languages replies are sent in (a keyword's language picks one; custom: English). */
export interface ReplyTexts {
  en: string;
  ar: string;
}

/** An account's keyword settings (GET/PATCH /api/v2/account/keywords). */
export interface KeywordSettings {
  /** The account's own keywords, on top of the defaults (matched like them, on the whole message). */
  extraKeywords: { word: string; kind: KeywordKind }[];
  /** The reply to HELP (always sent: a paid transactional SMS from the sender it was sent to). */
  helpText: ReplyTexts;
  /** Replies to an opt-out / opt-in keyword: off by default; each one sent is a paid transactional SMS. */
  confirmations: { enabled: boolean; optOutText: ReplyTexts; optInText: ReplyTexts };
}

export const DEFAULT_KEYWORD_SETTINGS: KeywordSettings = {
  extraKeywords: [],
  helpText: {
    en: 'Reply STOP to stop receiving messages, START to receive them again.',
    ar: 'أرسل إلغاء لإيقاف الرسائل، أو اشتراك لاستقبالها مجددا.',
  },
  confirmations: {
    enabled: false,
    optOutText: {
      en: 'You will not receive more messages from us. Reply START to receive them again.',
      ar: 'لن تصلك رسائل منا بعد الآن. أرسل اشتراك لاستقبالها مجددا.',
    },
    optInText: {
      en: 'You will receive our messages again. Reply STOP to stop.',
      ar: 'ستصلك رسائلنا مجددا. أرسل إلغاء للإيقاف.',
    },
  },
};
