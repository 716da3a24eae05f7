import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ApiError } from '../common/errors';
import { Public } from '../auth/decorators';
import { ApiErrors, ApiSuccess } from '../common/openapi';
import { Readiness, ReadinessService } from './readiness.service';

class LiveStatus {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
}

class ReadyStatus {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
  @ApiProperty({ enum: ['up'], description: 'The database answered' }) database: 'up';
  @ApiProperty({
    enum: ['up', 'not_configured'],
    description: 'Redis answered PING; `not_configured` without REDIS_URL',
  })
  redis: 'up' | 'not_configured';
  @ApiProperty({ enum: ['up_to_date'], description: 'Every migration of this version has run' })
  migrations: 'up_to_date';
}

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

  @Get('live')
  @ApiOperation({
    operationId: 'getLiveness',
    summary: 'Liveness: the process answers (no dependency is checked; stays 200 while shutting down)',
  })
  @ApiSuccess(200, LiveStatus, { bare: true, description: 'Alive', example: { status: 'ok' } })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({
    operationId: 'getReadiness',
    summary:
      'Readiness: the database and Redis (when configured) answer and no migration is pending; 503 SERVICE_UNAVAILABLE naming what is not, or from the moment shutdown begins',
  })
  @ApiSuccess(200, ReadyStatus, {
    bare: true,
    description: 'Ready to serve',
    example: { status: 'ok', database: 'up', redis: 'up', migrations: 'up_to_date' },
  })
  @ApiErrors('SERVICE_UNAVAILABLE')
  async ready(): Promise<Readiness> {
    const verdict = await this.readiness.check();
    if (!verdict.ready) throw new ApiError('SERVICE_UNAVAILABLE', `Not ready: ${verdict.problems.join('; ')}`);
    return verdict.report;
  }
}
