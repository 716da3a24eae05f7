import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { CHANNELS } from '../../config/app-config';
import { SANDBOX_FAULT_KINDS } from '../../providers/sandbox/sandbox-store';

export class SandboxMessagesQuery {
  @IsOptional() @IsString() @MaxLength(40)
  accountId?: string;

  @IsOptional() @IsIn(CHANNELS as unknown as string[])
  channel?: string;

  @IsOptional() @IsString() @MaxLength(320)
  to?: string;

  @IsOptional() @IsString() @MaxLength(40)
  bulkJobId?: string;

  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(10_000)
  limit?: number;
}

export class SandboxFaultDto {
  @IsOptional() @IsIn(CHANNELS as unknown as string[])
  channel?: string;

  /** `timeout` (extension): the sandbox never answers, so the pipeline's provider timeout fires. */
  @IsIn(SANDBOX_FAULT_KINDS as unknown as string[])
  kind: (typeof SANDBOX_FAULT_KINDS)[number];

  @IsInt() @Min(1) @Max(1_000_000)
  count: number;

  /** Extension: only this account's sends take the fault (parallel tests do not steal each other's). */
  @IsOptional() @IsString() @MaxLength(40)
  accountId?: string;
}
