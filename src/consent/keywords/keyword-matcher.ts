import type { KeywordKind } from '../../messaging/inbound/inbound-keywords';
import { normalizeKeywordText } from './keyword-text';

export type KeywordLanguage = 'en' | 'ar' | 'custom';

export interface KeywordDefinition {
  word: string;
  kind: KeywordKind;
  language: KeywordLanguage;
}

/** The keywords every account has (English and Arabic); accounts add their own (language `custom`). */
export const DEFAULT_KEYWORDS: readonly KeywordDefinition[] = [
  ...['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'].map((word) => ({
    word,
    kind: 'opt_out' as const,
    language: 'en' as const,
  })),
  { word: 'START', kind: 'opt_in', language: 'en' },
  { word: 'UNSTOP', kind: 'opt_in', language: 'en' },
  { word: 'HELP', kind: 'help', language: 'en' },
  ...['إلغاء', 'الغاء', 'ايقاف', 'إيقاف', 'توقف'].map((word) => ({
    word,
    kind: 'opt_out' as const,
    language: 'ar' as const,
  })),
  { word: 'اشتراك', kind: 'opt_in', language: 'ar' },
  { word: 'مساعدة', kind: 'help', language: 'ar' },
];

/**
 * The keyword a whole message is, or null: the message and each keyword are compared in their
 * normalised form (normalizeKeywordText). The defaults win over an account's own words.
 */
export function matchKeyword(text: string, extra: readonly KeywordDefinition[] = []): KeywordDefinition | null {
  const key = normalizeKeywordText(text);
  if (!key) return null;
  return [...DEFAULT_KEYWORDS, ...extra].find((k) => normalizeKeywordText(k.word) === key) ?? null;
}
