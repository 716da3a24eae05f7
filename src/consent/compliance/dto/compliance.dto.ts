import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';

// PATCH /api/v2/account/compliance. The pipe checks the shape (400 VALIDATION_ERROR naming the field);
// the service checks times, days, countries and zones, footers and host names (compliance-rules.ts).

export class MarketingWindowDto {
  @ApiPropertyOptional({ example: '09:00', description: "Local HH:MM in the recipient's zone; the window opens here." })
  @IsOptional()
  @IsString()
  @MaxLength(5)
  start?: string;

  @ApiPropertyOptional({ example: '22:00', description: 'Local HH:MM; the window closes here (after `start`).' })
  @IsOptional()
  @IsString()
  @MaxLength(5)
  end?: string;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
    example: ['sun', 'mon', 'tue', 'wed', 'thu'],
    description: 'Local days marketing may go out (at least one).',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(7)
  @IsString({ each: true })
  days?: string[];
}

export class FooterTextsDto {
  @ApiPropertyOptional({
    example: 'لإيقاف الرسائل أرسل إيقاف',
    description: 'For Arabic (UCS-2) text; 1 to 70 characters.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  ar?: string;

  @ApiPropertyOptional({ example: 'Reply STOP to opt out', description: 'For other text; 1 to 70 characters.' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  en?: string;
}

export class UpdateComplianceDto {
  @ApiPropertyOptional({ type: MarketingWindowDto, description: 'Fields given replace the current ones.' })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => MarketingWindowDto)
  marketingWindow?: MarketingWindowDto;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { US: 'America/New_York' },
    description:
      'ISO country code -> one of its IANA zones, for countries with several (replaces the whole map). A country not named uses the first zone the time-zone library lists for it.',
  })
  @IsOptional()
  @IsObject()
  defaultTimeZones?: Record<string, string>;

  @ApiPropertyOptional({ type: FooterTextsDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => FooterTextsDto)
  footer?: FooterTextsDto;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string' },
    maxItems: 50,
    example: ['example.com'],
    description: 'Hosts links in marketing SMS may point at (a subdomain of one is allowed); replaces the list.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  allowedLinkDomains?: string[];
}
