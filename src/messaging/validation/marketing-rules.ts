/*
 * Marketing SMS rules that need no database (issue 28 item 5): opt-out instructions and the footer,
 * and the hosts of links. The validator applies them with the account's MarketingRules.
 */

const LATIN_OPT_OUT = /(?:^|[^\p{L}\p{N}])(?:stop|stopall|unsubscribe)(?![\p{L}\p{N}])/iu;
const ARABIC_OPT_OUT = ['ايقاف', 'الغاء', 'توقف'];
const ARABIC_LETTER = /[\u0600-\u06ff]/;

/** Arabic letters folded the way keywords are matched: alef/hamza forms to bare alef, no diacritics or tatweel. */
function foldArabic(text: string): string {
  return text.replace(/[\u064b-\u065f\u0670\u0640]/g, '').replace(/[\u0622\u0623\u0625\u0671]/g, '\u0627');
}

/**
 * True when the text already tells how to opt out: it holds one of the account's footers, or an
 * opt-out keyword as a word (STOP, STOPALL, UNSUBSCRIBE in any case; إيقاف, إلغاء, توقف in any
 * alef form, with or without diacritics).
 */
export function hasOptOut(text: string, footer: { ar: string; en: string }): boolean {
  if (text.includes(footer.ar) || text.includes(footer.en)) return true;
  if (LATIN_OPT_OUT.test(text)) return true;
  const folded = foldArabic(text);
  return ARABIC_OPT_OUT.some((k) => folded.includes(k));
}

/** The text with the footer on a new line: the Arabic footer for text with Arabic letters, the English one otherwise. */
export function withFooter(text: string, footer: { ar: string; en: string }): string {
  return `${text}\n${ARABIC_LETTER.test(text) ? footer.ar : footer.en}`;
}

// A host in a link: after a scheme, or bare when it starts with www., is followed by a path, or ends in
// a top-level domain links commonly use (so "Mr.Smith" is not a link, "bit.ly" is).
const LINK = /(?:\b([a-z][a-z0-9+.-]*):\/\/)?((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63})(?=([:/?#]?))/giu;
const LINK_TLDS = new Set(
  'com net org info biz io co me ly gl to ws cc xyz app link site online store shop sa ae kw qa bh om eg uk de fr us ai dev page click top'.split(
    ' ',
  ),
);

/** The lower-case hosts the text links to (each once). */
export function linkHosts(text: string): string[] {
  const hosts = new Set<string>();
  for (const m of text.matchAll(LINK)) {
    const host = m[2].toLowerCase();
    const bareLink = host.startsWith('www.') || m[3] !== '' || LINK_TLDS.has(host.slice(host.lastIndexOf('.') + 1));
    if (m[1] !== undefined || bareLink) hosts.add(host);
  }
  return [...hosts];
}

/** A host is allowed when it is a registered domain or a subdomain of one. */
export function hostAllowed(host: string, domains: readonly string[]): boolean {
  return domains.some((d) => host === d || host.endsWith(`.${d}`));
}
