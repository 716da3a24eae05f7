import { ApiProperty } from '@nestjs/swagger';
import type { WeekDay } from '../../../messaging/validation/lookups';
import type { ComplianceView } from '../compliance-settings.service';

// Response shapes of the compliance routes; the classes implement the service's view.

export class MarketingWindow {
  @ApiProperty({ example: '09:00' }) start: string;
  @ApiProperty({ example: '22:00' }) end: string;
  @ApiProperty({
    type: 'array',
    items: { type: 'string', enum: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
    example: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'],
  })
  days: WeekDay[];
}

export class FooterTexts {
  @ApiProperty({ example: 'لإيقاف الرسائل أرسل إيقاف' }) ar: string;
  @ApiProperty({ example: 'Reply STOP to opt out' }) en: string;
}

export class ComplianceResource implements ComplianceView {
  @ApiProperty({
    type: MarketingWindow,
    description: "When marketing goes out, in the recipient's local time (zone from the number's country).",
  })
  marketingWindow: MarketingWindow;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' }, example: { US: 'America/New_York' } })
  defaultTimeZones: Record<string, string>;
  @ApiProperty({ type: FooterTexts, description: 'Appended to a marketing SMS that carries no opt-out instructions.' })
  footer: FooterTexts;
  @ApiProperty({ type: 'array', items: { type: 'string' }, example: ['example.com'] })
  allowedLinkDomains: string[];
  @ApiProperty({ enum: ['default', 'account'] }) source: 'default' | 'account';
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) updatedAt: string | null;
}

export class ComplianceResult {
  @ApiProperty({ type: ComplianceResource }) compliance: ComplianceResource;
}

export const COMPLIANCE_EXAMPLE = {
  success: true,
  data: {
    compliance: {
      marketingWindow: { start: '09:00', end: '22:00', days: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
      defaultTimeZones: {},
      footer: { ar: 'لإيقاف الرسائل أرسل إيقاف', en: 'Reply STOP to opt out' },
      allowedLinkDomains: [],
      source: 'default',
      updatedAt: null,
    },
  },
};
