import { isValidPhoneNumber, CountryCode } from 'libphonenumber-js';
import { ApiError } from '../common/errors';
import type { CreateTemplateDto } from './dto/create-template.dto';
import type { BodyParameter, HeaderType, OtpOptions, TemplateButton, TemplateProvider } from './template.types';

/** A create request after every cross-field rule passed: what the service stores or submits. */
export interface TemplatePlan {
  provider: TemplateProvider;
  /** Official template to submit to the provider (not a manual link). */
  submitToProvider: boolean;
  manual: boolean;
  language: string | null;
  text: string | null;
  variableCount: number;
  bodyParameters: BodyParameter[];
  headerType: HeaderType | null;
  buttons: TemplateButton[];
  urlButtonVariables: string[];
  otp: OtpOptions | null;
}

const bad = (message: string) => ApiError.validation(message);

/** Placeholders `{{n}}` of a text: must be exactly 1..n. Returns n. */
export function countPlaceholders(text: string, field: string, strict: boolean): number {
  const all = [...text.matchAll(/\{\{\s*([^{}]*?)\s*\}\}/g)].map((m) => m[1]);
  const numbers = new Set<number>();
  for (const p of all) {
    if (/^\d+$/.test(p)) numbers.add(Number(p));
    else if (strict) throw bad(`${field} placeholders must be numbered like {{1}}, {{2}}; found {{${p}}}`);
  }
  const n = numbers.size === 0 ? 0 : Math.max(...numbers);
  for (let i = 1; i <= n; i++) {
    if (!numbers.has(i))
      throw bad(`${field} placeholders must run from {{1}} to {{${n}}} without gaps; {{${i}}} is missing`);
  }
  return n;
}

function checkBodyParameters(params: BodyParameter[] | undefined, n: number, required: boolean): BodyParameter[] {
  if (params === undefined) {
    if (required && n > 0) throw bad(`bodyParameters is required: give an example label for each of {{1}}..{{${n}}}`);
    return [];
  }
  const indexes = params.map((p) => p.index);
  if (new Set(indexes).size !== indexes.length) throw bad('bodyParameters has a repeated index');
  const expected = Array.from({ length: n }, (_, i) => i + 1);
  if (indexes.length !== n || !expected.every((i) => indexes.includes(i))) {
    throw bad(
      `bodyParameters indexes must match the body placeholders ({{1}}..{{${n}}}; ${n} item${n === 1 ? '' : 's'})`,
    );
  }
  return params.map((p) => ({ index: p.index, label: p.label }));
}

function checkButtons(
  dto: CreateTemplateDto,
  region: CountryCode,
): { buttons: TemplateButton[]; urlButtonVariables: string[] } {
  const buttons: TemplateButton[] = [];
  const urlButtonVariables: string[] = [];
  (dto.buttons ?? []).forEach((b, i) => {
    const where = `buttons[${i}].url`;
    if (b.type === 'url') {
      let u: URL | null = null;
      try {
        u = new URL(b.url.replace('{{1}}', 'x'));
      } catch {
        u = null;
      }
      if (!u || !['https:', 'http:'].includes(u.protocol)) throw bad(`${where} must be an http(s) URL`);
      if (!b.url.includes('{{1}}') || (b.url.match(/\{\{/g) ?? []).length !== 1)
        throw bad(`${where} must contain the placeholder {{1}} once`);
      const prefix = b.url.slice(0, b.url.indexOf('{{1}}'));
      const example = b.urlExample ?? null;
      urlButtonVariables.push(
        example === null ? '' : example.startsWith(prefix) ? example.slice(prefix.length) : example,
      );
      buttons.push({ type: 'url', text: b.text, url: b.url, urlExample: example });
    } else {
      if (!isValidPhoneNumber(b.url, region))
        throw bad(`${where} must be a dialable phone number (E.164, e.g. +966500000000)`);
      buttons.push({ type: 'phone', text: b.text, url: b.url });
    }
  });
  return { buttons, urlButtonVariables };
}

function checkOtp(dto: CreateTemplateDto): OtpOptions | null {
  const given = [
    dto.otpType,
    dto.addSecurityRecommendation,
    dto.codeExpirationMinutes,
    dto.otpButtonText,
    dto.packageName,
    dto.signatureHash,
    dto.zeroTapTermsAccepted,
  ].some((v) => v !== undefined);
  if (!given) return null;
  if (dto.subType !== 'otp')
    throw bad('otpType, codeExpirationMinutes and the other OTP fields are only used with subType otp');
  if (dto.otpType === 'zero_tap' && dto.zeroTapTermsAccepted !== true)
    throw bad('zeroTapTermsAccepted must be true when otpType is zero_tap');
  if ((dto.otpType === 'one_tap' || dto.otpType === 'zero_tap') && (!dto.packageName || !dto.signatureHash)) {
    throw bad(`packageName and signatureHash are required when otpType is ${dto.otpType}`);
  }
  return {
    otpType: dto.otpType ?? null,
    addSecurityRecommendation: dto.addSecurityRecommendation ?? null,
    codeExpirationMinutes: dto.codeExpirationMinutes ?? null,
    otpButtonText: dto.otpButtonText ?? null,
    packageName: dto.packageName ?? null,
    signatureHash: dto.signatureHash ?? null,
    zeroTapTermsAccepted: dto.zeroTapTermsAccepted ?? null,
  };
}

function resolveProvider(dto: CreateTemplateDto): TemplateProvider {
  if (dto.category !== 'chatapp') {
    if ((dto.provider && dto.provider !== 'internal') || dto.templateTarget)
      throw bad(`provider must be internal (or absent) for ${dto.category} templates`);
    return 'internal';
  }
  const session = dto.templateTarget === 'user_session' || dto.provider === 'user_session';
  if (session && (dto.provider === 'official' || dto.templateTarget === 'official'))
    throw bad('templateTarget and provider disagree');
  if (dto.provider === 'internal') throw bad('provider must be official or user_session for chatapp templates');
  return session ? 'user_session' : 'official';
}

/** Every cross-field rule of POST /api/v2/templates. `mediaSources` counts headerAssetId/file/headerMediaUrl given. */
export function planTemplate(dto: CreateTemplateDto, mediaSources: number, region: CountryCode): TemplatePlan {
  const provider = resolveProvider(dto);
  const official = provider === 'official';
  const manual = dto.creationMode === 'manual_external_id';
  if (manual && !official)
    throw bad(
      'creationMode manual_external_id links an official chatapp template (category chatapp, provider official)',
    );
  if (manual && (dto.providerTemplateId === undefined || dto.manualVariableCount === undefined)) {
    throw bad('providerTemplateId and manualVariableCount are required when creationMode is manual_external_id');
  }
  if (!manual && (dto.providerTemplateId !== undefined || dto.manualVariableCount !== undefined)) {
    throw bad('providerTemplateId and manualVariableCount are only used with creationMode manual_external_id');
  }
  if (dto.officialSenderId !== undefined && !official)
    throw bad('officialSenderId is only used for official chatapp templates');
  if (dto.category === 'email' && !dto.emailSubject) throw bad('emailSubject is required for email templates');
  if (dto.category !== 'email' && dto.emailSubject !== undefined)
    throw bad('emailSubject is only used for email templates');

  // Text: chat-app templates carry `body`, the others `content`.
  let field: 'body' | 'content';
  if (dto.category === 'chatapp') {
    field = 'body';
    if (dto.content !== undefined) throw bad('content is not used for chatapp templates; use body');
    if (!dto.body && !manual) throw bad('body is required for chatapp templates');
  } else {
    field = 'content';
    if (dto.body !== undefined) throw bad(`body is only used for chatapp templates; use content for ${dto.category}`);
    if (!dto.content) throw bad(`content is required for ${dto.category} templates`);
  }
  const text = (field === 'body' ? dto.body : dto.content) ?? null;
  const counted = text === null ? 0 : countPlaceholders(text, field, dto.category === 'chatapp');
  if (manual && text !== null && counted !== dto.manualVariableCount) {
    throw bad(
      `manualVariableCount (${dto.manualVariableCount}) does not match the {{n}} placeholders of body (${counted})`,
    );
  }
  const variableCount = manual ? (dto.manualVariableCount as number) : counted;
  const bodyParameters = checkBodyParameters(dto.bodyParameters, counted, official && !manual);

  // Header, footer, buttons: chat-app only.
  if (
    dto.category !== 'chatapp' &&
    (dto.headerType || dto.headerValue || mediaSources > 0 || dto.footer || dto.buttons)
  ) {
    throw bad(`headerType, headerValue, header media, footer and buttons are only used for chatapp templates`);
  }
  if (dto.headerValue !== undefined && dto.headerType !== 'text')
    throw bad('headerValue is only allowed when headerType is text');
  if (dto.headerType === 'text' && !dto.headerValue) throw bad('headerValue is required when headerType is text');
  if (dto.headerType === 'text' && mediaSources > 0) throw bad('header media is not allowed when headerType is text');
  if (mediaSources > 1) throw bad('send only one of headerAssetId, headerMedia/file and headerMediaUrl');
  const mediaHeader = dto.headerType !== undefined && dto.headerType !== 'text';
  if (mediaHeader && mediaSources === 0 && !manual) {
    throw bad(`headerType ${dto.headerType} needs the header file: headerAssetId, headerMedia/file or headerMediaUrl`);
  }
  // Sends fill only body variables, so header and footer text must be fixed.
  if (dto.headerValue && /\{\{/.test(dto.headerValue)) throw bad('headerValue cannot contain {{n}} placeholders');
  if (dto.footer && /\{\{/.test(dto.footer)) throw bad('footer cannot contain {{n}} placeholders');
  if (provider === 'user_session' && dto.footer !== undefined)
    throw bad('footer is not used in web-session (user_session) templates');

  const { buttons, urlButtonVariables } = checkButtons(dto, region);
  const otp = checkOtp(dto);
  return {
    provider,
    submitToProvider: official && !manual,
    manual,
    language: dto.language ?? (official ? 'en' : null),
    text,
    variableCount,
    bodyParameters,
    headerType: dto.headerType ?? null,
    buttons,
    urlButtonVariables,
    otp,
  };
}
