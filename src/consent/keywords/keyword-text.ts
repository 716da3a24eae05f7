/**
 * The form in which an inbound text is compared with keywords (pure, no state). Both sides, the
 * message and every keyword, go through it, so "  Stop! ", "STOP" and "stop" meet, and so do
 * "إِيقَاف", "ايقاف" and "إيقـــاف". Steps, in order:
 * - Unicode NFKC (compatibility forms, full-width Latin, Arabic presentation forms -> base letters);
 * - format characters dropped (zero-width joiners, LRM/RLM, the Arabic letter mark);
 * - Arabic: diacritics (harakat, tanween, shadda, sukun, superscript alef, Quranic marks) and tatweel
 *   dropped; alef with hamza above/below, madda and wasla -> bare alef; waw and yeh with hamza ->
 *   waw and yeh; alef maksura -> yeh; taa marbuta -> heh;
 * - Arabic-Indic and Eastern Arabic-Indic digits -> 0-9;
 * - case folded (lower case), whitespace runs -> one space, punctuation and symbols at either end
 *   trimmed (a "STOP." or "توقف!" is still the whole message "stop" / "توقف").
 */
export function normalizeKeywordText(text: string): string {
  let s = text.normalize('NFKC');
  s = s.replace(/[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u061C\uFEFF]/g, '');
  s = s.replace(/[\u0610-\u061A\u064B-\u065F\u0670\u06D6-\u06DC\u06DF-\u06E8\u06EA-\u06ED\u0640]/g, '');
  s = s
    .replace(/[\u0622\u0623\u0625\u0671\u0672\u0673]/g, '\u0627')
    .replace(/\u0624/g, '\u0648')
    .replace(/[\u0626\u0649]/g, '\u064A')
    .replace(/\u0629/g, '\u0647');
  s = s
    .replace(/[\u0660-\u0669]/g, (d) => String(d.charCodeAt(0) - 0x0660))
    .replace(/[\u06F0-\u06F9]/g, (d) => String(d.charCodeAt(0) - 0x06f0));
  s = s.toLowerCase().replace(/\s+/gu, ' ');
  return s.replace(/^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu, '');
}
