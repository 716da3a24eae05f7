import type { ChannelName } from '../../config/app-config';
import { fail, httpUrl, renderPlaceholders } from './recipient-rules';
import type { TemplateForSend } from './lookups';
import type { ValidatedTemplate } from './validated-message';

const TEMPLATE_FIELDS = new Set(['id', 'variablesIndexed', 'buttonVariables', 'headerMediaUrl']);

/** Which template categories each channel can send. */
const CATEGORIES: Record<ChannelName, readonly string[]> = {
  local_sms: ['sms', 'message'],
  chatapp: ['chatapp'],
  chatapp_web: ['chatapp', 'message', 'sms'],
  messaging_bot: ['message', 'chatapp', 'sms'],
  email: ['email'],
};

export interface RenderedTemplate {
  template: ValidatedTemplate;
  text: string | null;
  subject: string | null;
  html: string | null;
}

/** Only an approved or active template may be sent. */
function isUsableStatus(status: string): boolean {
  return status === 'approved' || status === 'active';
}

/** Checks a found template against the send's `template` object and renders it. */
export function resolveTemplate(
  found: TemplateForSend | null,
  input: Record<string, unknown>,
  channel: ChannelName,
): RenderedTemplate {
  for (const key of Object.keys(input))
    if (!TEMPLATE_FIELDS.has(key)) fail('VALIDATION_ERROR', `template.${key} is not an allowed field`);
  if (!found)
    fail('TEMPLATE_NOT_FOUND', `template.id: template ${String(input.id).slice(0, 40)} not found for this account`);
  if (!isUsableStatus(found.status))
    fail('TEMPLATE_NOT_USABLE', `template.id: template ${found.name} is ${found.status}, not approved or active`);
  if (!CATEGORIES[channel].includes(found.category))
    fail('TEMPLATE_NOT_USABLE', `template.id: a ${found.category} template cannot be sent on ${channel}`);

  const variables = stringList(input.variablesIndexed, 'template.variablesIndexed');
  if (variables.length !== found.variableCount) {
    fail(
      'TEMPLATE_VARIABLES_MISMATCH',
      `template.variablesIndexed must have ${found.variableCount} value(s), got ${variables.length}`,
    );
  }
  // Dynamic URL buttons, by their position among ALL the template's buttons (what the Cloud API indexes).
  const buttonIndexes = found.buttons.flatMap((b, i) => (b.type === 'url' && /\{\{\s*1\s*\}\}/.test(b.url) ? [i] : []));
  const buttonVariables = stringList(input.buttonVariables, 'template.buttonVariables');
  if (buttonVariables.length !== buttonIndexes.length) {
    fail(
      'TEMPLATE_VARIABLES_MISMATCH',
      `template.buttonVariables must have ${buttonIndexes.length} value(s), got ${buttonVariables.length}`,
    );
  }
  let headerMediaUrl: string | null = null;
  if (input.headerMediaUrl !== undefined && input.headerMediaUrl !== null) {
    if (!found.allowsHeaderMediaOverride)
      fail('TEMPLATE_NOT_USABLE', 'template.headerMediaUrl: this template does not accept a header media override');
    headerMediaUrl = httpUrl(input.headerMediaUrl, 'template.headerMediaUrl', 'INVALID_ATTACHMENT');
  }
  const source = found.body ?? found.content ?? '';
  const isEmail = channel === 'email';
  // Whether an email is html is decided by the template alone: variables are text, so a value
  // holding a tag is escaped into an html template and stays literal in a text one.
  const isHtml = isEmail && isHtmlTemplate(source);
  return {
    template: {
      id: found.id,
      name: found.name,
      language: found.language,
      providerTemplateId: found.providerTemplateId,
      variables,
      buttonVariables,
      buttonIndexes,
      headerMediaUrl,
    },
    text: isHtml ? null : renderPlaceholders(source, variables),
    subject: isEmail ? renderPlaceholders(found.emailSubject ?? found.name, variables) : null,
    html: isHtml ? renderPlaceholders(source, variables.map(escapeHtml)) : null,
  };
}

/** An email template is html when its own content holds a tag. */
function isHtmlTemplate(source: string): boolean {
  return /<[a-z][\s\S]*>/i.test(source);
}

const HTML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for html element content and quoted attribute values. */
function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ENTITIES[c]);
}

function stringList(v: unknown, field: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) fail('TEMPLATE_VARIABLES_MISMATCH', `${field} must be an array`);
  return v.map((x, i) => {
    if (typeof x === 'number' && Number.isFinite(x)) return String(x);
    if (typeof x !== 'string' || x.length > 1024)
      fail('TEMPLATE_VARIABLES_MISMATCH', `${field}[${i}] must be a string of at most 1024 characters`);
    return x;
  });
}
