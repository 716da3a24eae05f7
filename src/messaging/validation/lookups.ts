import type { CountryAllowList } from '../../config/app-config';
import type { TemplateRoute } from '../../providers/provider.types';
import type { AccountId } from '../../common/account-id';

/*
 * Ports: what messaging needs from feature modules that sit above it. Messaging declares each one
 * (an interface and its injection token); the feature module that owns the data provides the token
 * (`useExisting` its service) and exports it from a global module, so messaging never imports a
 * feature. Senders: SendersModule; templates: TemplatesModule; sessions: ChatappWebModule; geo
 * permissions: FraudModule; compliance settings: ComplianceModule (consent).
 */

/** An approved SMS sender name; `promotional` ones (`-AD`) send marketing only, and marketing goes out only from them. */
export interface ApprovedSender {
  id: string;
  name: string;
  type: 'transactional' | 'promotional';
}

export interface SenderLookup {
  findApprovedByName(accountId: AccountId, name: string): Promise<ApprovedSender | null>;
  findDefaultApproved(accountId: AccountId): Promise<ApprovedSender | null>;
}

/** What a send needs to render and route a template (categories and statuses are the templates module's). */
export interface TemplateForSend {
  id: string;
  name: string;
  category: string;
  /** `marketing` makes every message of the template marketing (consent rules). */
  subType: string;
  status: string;
  provider: string;
  language: string | null;
  body: string | null;
  content: string | null;
  emailSubject: string | null;
  /** Number of `{{n}}` placeholders (or manualVariableCount for a manually linked template). */
  variableCount: number;
  buttons: { type: 'url' | 'phone'; text: string; url: string }[];
  allowsHeaderMediaOverride: boolean;
  providerTemplateId: string | null;
}

export interface TemplateLookup {
  /** The account's own template or a default one, whatever its status; null when neither exists. */
  findForSend(accountId: AccountId, templateId: string): Promise<TemplateForSend | null>;
}

/** What the provider gateway needs (the same token as TemplateLookup). */
export interface TemplateRouteLookup {
  /** The number the template goes out from, read at the provider call; null when not visible. */
  routeForSend(accountId: AccountId, templateId: string): Promise<TemplateRoute | null>;
}

export interface SessionLookup {
  /** Throws ApiError NOT_FOUND / SESSION_NOT_READY. `kind`: `web` session or messaging `bot` id. */
  findForSend(accountId: AccountId, sessionName: string): Promise<{ name: string; status: string; kind: string }>;
}

/** The channels whose recipients are phone numbers, so have a country (email and messaging_bot have none). */
export const GEO_CHANNELS = ['local_sms', 'chatapp', 'chatapp_web'] as const;
export type GeoChannel = (typeof GEO_CHANNELS)[number];

/** Per phone channel: `'*'` (every country) or the ISO 3166-1 codes a recipient's number may belong to. */
export type DestinationCountries = Record<GeoChannel, CountryAllowList>;

export interface GeoPermissionsLookup {
  /** The account's own lists, or the configured default (DEFAULT_ALLOWED_COUNTRIES) when it has none. */
  allowedDestinations(accountId: AccountId): Promise<DestinationCountries>;
}

export const WEEK_DAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type WeekDay = (typeof WEEK_DAYS)[number];

/** An account's marketing rules (issue 28 items 5 and 6), read once per ValidationContext. */
export interface MarketingRules {
  /** Appended to a marketing SMS that carries no opt-out instructions: `ar` for UCS-2 text, `en` otherwise. */
  footer: { ar: string; en: string };
  /** Hosts links in marketing SMS may point at (a subdomain of one is allowed too); empty: no links. */
  allowedLinkDomains: string[];
  /** Marketing goes out only on these local days, from `start` to `end` (`HH:MM`, recipient's zone). */
  window: { start: string; end: string; days: WeekDay[] };
  /** ISO country -> IANA zone for countries with several zones (otherwise the first the library lists). */
  defaultTimeZones: Record<string, string>;
}

export interface ComplianceSettingsLookup {
  marketingRules(accountId: AccountId): Promise<MarketingRules>;
}

export const SENDER_LOOKUP = Symbol('SENDER_LOOKUP');
export const TEMPLATE_LOOKUP = Symbol('TEMPLATE_LOOKUP');
export const SESSION_LOOKUP = Symbol('SESSION_LOOKUP');
export const GEO_PERMISSIONS = Symbol('GEO_PERMISSIONS');
export const COMPLIANCE_SETTINGS = Symbol('COMPLIANCE_SETTINGS');
