import type { OfficialTemplateSubmission } from './official-template-client';

type Component = Record<string, unknown>;

const CATEGORY: Record<string, string> = {
  otp: 'AUTHENTICATION',
  marketing: 'MARKETING',
  utility: 'UTILITY',
  free: 'UTILITY',
};

/**
 * Body of POST /{version}/{waba-id}/message_templates (WhatsApp Cloud API template creation).
 * `headerHandle`: the resumable-upload handle of the header media (the example the reviewers see).
 */
export function cloudTemplatePayload(
  s: OfficialTemplateSubmission,
  headerHandle: string | null = null,
): Record<string, unknown> {
  const components: Component[] = [];
  if (s.subType === 'otp' && s.otp)
    return { name: s.name, language: s.language, category: 'AUTHENTICATION', components: otpComponents(s) };
  if (s.header) {
    if (s.header.type === 'text') components.push({ type: 'HEADER', format: 'TEXT', text: s.header.text });
    else
      components.push({
        type: 'HEADER',
        format: s.header.type.toUpperCase(),
        example: { header_handle: [headerHandle ?? s.header.mediaUrl] },
      });
  }
  if (s.body) {
    const body: Component = { type: 'BODY', text: s.body };
    if (s.bodyParameters.length)
      body.example = { body_text: [[...s.bodyParameters].sort((a, b) => a.index - b.index).map((p) => p.label)] };
    components.push(body);
  }
  if (s.footer) components.push({ type: 'FOOTER', text: s.footer });
  if (s.buttons.length) {
    components.push({
      type: 'BUTTONS',
      buttons: s.buttons.map((b) =>
        b.type === 'url'
          ? { type: 'URL', text: b.text, url: b.url, ...(b.urlExample ? { example: [b.urlExample] } : {}) }
          : { type: 'PHONE_NUMBER', text: b.text, phone_number: b.url },
      ),
    });
  }
  return { name: s.name, language: s.language, category: CATEGORY[s.subType] ?? 'UTILITY', components };
}

function otpComponents(s: OfficialTemplateSubmission): Component[] {
  const otp = s.otp!;
  const components: Component[] = [
    { type: 'BODY', ...(otp.addSecurityRecommendation ? { add_security_recommendation: true } : {}) },
  ];
  if (otp.codeExpirationMinutes)
    components.push({ type: 'FOOTER', code_expiration_minutes: otp.codeExpirationMinutes });
  const button: Component = { type: 'OTP', otp_type: (otp.otpType ?? 'copy_code').toUpperCase() };
  if (otp.otpButtonText) button.text = otp.otpButtonText;
  if (otp.packageName && otp.signatureHash)
    button.supported_apps = [{ package_name: otp.packageName, signature_hash: otp.signatureHash }];
  if (otp.otpType === 'zero_tap') button.zero_tap_terms_accepted = otp.zeroTapTermsAccepted === true;
  components.push({ type: 'BUTTONS', buttons: [button] });
  return components;
}
