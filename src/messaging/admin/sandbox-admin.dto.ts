import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { CHANNELS } from '../../config/app-config';
import { SANDBOX_FAULT_KINDS } from '../../providers/sandbox/sandbox-store';

export class SandboxMessagesQuery {
  @ApiPropertyOptional({ maxLength: 40 })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  accountId?: string;

  @ApiPropertyOptional({ enum: CHANNELS })
  @IsOptional()
  @IsIn(CHANNELS as unknown as string[])
  channel?: string;

  @ApiPropertyOptional({ maxLength: 320, description: 'Recipient as stored (E.164, lowercased email or chat id)' })
  @IsOptional()
  @IsString()
  @MaxLength(320)
  to?: string;

  @ApiPropertyOptional({ maxLength: 40 })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  bulkJobId?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 10_000, default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(10_000)
  limit?: number;
}

export class SandboxFaultDto {
  @ApiPropertyOptional({ enum: CHANNELS, description: 'Only calls of this channel take the fault (default: any)' })
  @IsOptional()
  @IsIn(CHANNELS as unknown as string[])
  channel?: string;

  /** `timeout` (extension): the sandbox never answers, so the pipeline's provider timeout fires. */
  @ApiProperty({
    enum: SANDBOX_FAULT_KINDS,
    description:
      '`timeout`: the sandbox never answers, so the provider timeout fires; `delay`: it answers normally after `delayMs`',
  })
  @IsIn(SANDBOX_FAULT_KINDS as unknown as string[])
  kind: (typeof SANDBOX_FAULT_KINDS)[number];

  /** Extension: a slow provider, so work in flight can be observed (e.g. during a shutdown). */
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: 60_000,
    description: 'Required with `delay`: how long each call is held, in ms (ignored otherwise)',
  })
  @ValidateIf((o: SandboxFaultDto) => o.kind === 'delay')
  @IsInt()
  @Min(1)
  @Max(60_000)
  delayMs?: number;

  @ApiProperty({ type: 'integer', minimum: 1, maximum: 1_000_000, description: 'How many calls fail' })
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  count: number;

  /** Extension: only this account's sends take the fault (parallel tests do not steal each other's). */
  @ApiPropertyOptional({ maxLength: 40, description: "Only this account's calls take the fault" })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  accountId?: string;
}

export class SandboxDelivery {
  @ApiProperty() id: string;
  @ApiProperty({ description: 'The message log id' }) messageId: string;
  @ApiProperty() accountId: string;
  @ApiProperty({ enum: CHANNELS }) channel: string;
  @ApiProperty() to: string;
  @ApiProperty({ type: 'string', nullable: true }) sender: string | null;
  @ApiProperty({ type: 'string', nullable: true }) text: string | null;
  @ApiProperty({ type: 'string', nullable: true }) subject: string | null;
  @ApiProperty({ type: 'string', nullable: true }) bulkJobId: string | null;
  @ApiProperty({ type: 'integer', nullable: true }) rowIndex: number | null;
  @ApiProperty({ type: 'string', format: 'date-time' }) deliveredAt: string;
}

export class SandboxDeliveryList {
  @ApiProperty({ type: [SandboxDelivery] }) messages: SandboxDelivery[];
}

export class SandboxFault {
  @ApiProperty() id: string;
  @ApiProperty({ type: 'string', nullable: true, enum: [...CHANNELS, null] }) channel: string | null;
  @ApiProperty({ enum: SANDBOX_FAULT_KINDS }) kind: string;
  @ApiProperty({ type: 'integer' }) count: number;
  @ApiProperty({ type: 'string', nullable: true }) accountId: string | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'Only for `delay`' }) delayMs: number | null;
}

export class SandboxFaultAdded {
  @ApiProperty({ type: SandboxFault }) fault: SandboxFault;
}

export class SandboxFaultsCleared {
  @ApiProperty({ type: 'integer', minimum: 0 }) cleared: number;
}
