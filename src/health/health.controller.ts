import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/errors';
import { Public } from '../auth/decorators';
import { ApiSuccess } from '../common/openapi';

class LiveStatus {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
}

class ReadyStatus {
  @ApiProperty({ enum: ['ok'] }) status: 'ok';
  @ApiProperty({ enum: ['up'] }) database: 'up';
}

@ApiTags('health')
@Public()
@Controller('health')
export class HealthController {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  @Get('live')
  @ApiOperation({ operationId: 'getLiveness', summary: 'Liveness: the process answers (no dependency is checked)' })
  @ApiSuccess(200, LiveStatus, { bare: true, description: 'Alive', example: { status: 'ok' } })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ operationId: 'getReadiness', summary: 'Readiness: the database answers; 503 SERVICE_UNAVAILABLE when it does not' })
  @ApiSuccess(200, ReadyStatus, { bare: true, description: 'Ready to serve', example: { status: 'ok', database: 'up' } })
  async ready(): Promise<{ status: 'ok'; database: 'up' }> {
    try {
      await this.dataSource.query('SELECT 1');
    } catch {
      throw new ApiError('SERVICE_UNAVAILABLE', 'Database is not reachable');
    }
    return { status: 'ok', database: 'up' };
  }
}
