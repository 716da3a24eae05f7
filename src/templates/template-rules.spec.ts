import { ApiError } from '../common/errors';
import type { CreateTemplateDto } from './dto/create-template.dto';
import { countPlaceholders, planTemplate } from './template-rules';

const dto = (over: Partial<CreateTemplateDto>): CreateTemplateDto =>
  ({ name: 'x', category: 'chatapp', subType: 'utility', ...over }) as CreateTemplateDto;

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return `${e.code}: ${e.message}`;
    throw e;
  }
  return 'no error';
}

describe('template rules', () => {
  describe(countPlaceholders.name, () => {
    it('counts {{1}}..{{n}}, repeats allowed', () => {
      expect(countPlaceholders('a {{1}} b {{2}} c {{1}}', 'body', true)).toBe(2);
      expect(countPlaceholders('no variables', 'body', true)).toBe(0);
      expect(countPlaceholders('spaced {{ 1 }}', 'body', true)).toBe(1);
    });
    it('refuses gaps and not starting at 1', () => {
      expect(messageOf(() => countPlaceholders('{{2}}', 'body', true))).toContain('{{1}} is missing');
      expect(messageOf(() => countPlaceholders('{{1}} {{3}}', 'body', true))).toContain('{{2}} is missing');
    });
    it('named placeholders: refused when strict, ignored otherwise (email HTML)', () => {
      expect(messageOf(() => countPlaceholders('{{name}}', 'body', true))).toContain('numbered');
      expect(countPlaceholders('{{name}} {{1}}', 'content', false)).toBe(1);
    });
  });

  describe(planTemplate.name, () => {
    it('chatapp defaults to official, language en, needs examples for placeholders', () => {
      const plan = planTemplate(dto({ body: 'Hi {{1}}', bodyParameters: [{ index: 1, label: 'Sara' }] }), 0, 'SA');
      expect(plan).toMatchObject({ provider: 'official', submitToProvider: true, language: 'en', variableCount: 1 });
      expect(messageOf(() => planTemplate(dto({ body: 'Hi {{1}}' }), 0, 'SA'))).toContain('bodyParameters is required');
    });
    it('user_session needs no examples and refuses a footer', () => {
      expect(planTemplate(dto({ body: 'Hi {{1}}', templateTarget: 'user_session' }), 0, 'SA')).toMatchObject({
        provider: 'user_session',
        submitToProvider: false,
      });
      expect(
        messageOf(() => planTemplate(dto({ body: 'x', provider: 'user_session', footer: 'f' }), 0, 'SA')),
      ).toContain('footer');
    });
    it('manual link takes manualVariableCount and must agree with a given body', () => {
      expect(
        planTemplate(
          dto({ creationMode: 'manual_external_id', providerTemplateId: '1', manualVariableCount: 3 }),
          0,
          'SA',
        ),
      ).toMatchObject({ variableCount: 3, manual: true, submitToProvider: false });
      expect(
        messageOf(() =>
          planTemplate(
            dto({ creationMode: 'manual_external_id', providerTemplateId: '1', manualVariableCount: 3, body: '{{1}}' }),
            0,
            'SA',
          ),
        ),
      ).toContain('manualVariableCount');
    });
    it('url button suffix example is derived from urlExample', () => {
      const plan = planTemplate(
        dto({
          body: 'x',
          buttons: [
            { type: 'url', text: 'Go', url: 'https://a.example/p/{{1}}', urlExample: 'https://a.example/p/XYZ' },
          ],
        }),
        0,
        'SA',
      );
      expect(plan.urlButtonVariables).toEqual(['XYZ']);
    });
    it('header text and footer cannot carry placeholders (sends fill body variables only)', () => {
      expect(
        messageOf(() => planTemplate(dto({ body: 'x', headerType: 'text', headerValue: 'Hi {{1}}' }), 0, 'SA')),
      ).toContain('headerValue');
      expect(messageOf(() => planTemplate(dto({ body: 'x', footer: 'Bye {{1}}' }), 0, 'SA'))).toContain('footer');
    });
    it('non-chat categories refuse chat-only fields', () => {
      expect(messageOf(() => planTemplate(dto({ category: 'sms', content: 'x', footer: 'f' }), 0, 'SA'))).toContain(
        'only used for chatapp',
      );
      expect(
        messageOf(() => planTemplate(dto({ category: 'sms', content: 'x', provider: 'official' }), 0, 'SA')),
      ).toContain('provider');
    });
  });
});
