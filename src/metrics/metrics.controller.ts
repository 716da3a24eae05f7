import { Controller, Get, Header, NotFoundException, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiProduces, ApiResponse, ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { safeEqualString } from '../common/constant-time';
import { Public, ThrottlePerIp } from '../auth/decorators';
import { ApiError } from '../common/errors';
import { ApiErrors } from '../common/openapi';
import { AppConfig } from '../config/app-config';
import { MetricsService } from './metrics.service';

/** Prometheus text format 0.0.4 (prom-client's Registry.contentType; Express sends it as `text/plain; charset=utf-8; version=0.0.4`). */
const CONTENT_TYPE = 'text/plain; version=0.0.4';
const EXAMPLE = [
  '# HELP messages_total Messages reaching a status (scheduled, sent, delivered, read, failed, cancelled), by channel, configured provider and mode (live, test)',
  '# TYPE messages_total counter',
  'messages_total{channel="local_sms",provider="sandbox",status="sent",mode="live"} 42',
  'messages_total{channel="local_sms",provider="sandbox",status="sent",mode="test"} 3',
  '',
].join('\n');

/**
 * Prometheus scrape endpoint, outside /api and /admin: no API key (its own METRICS_TOKEN instead),
 * throttled per client IP like the other keyless routes, so a short token cannot be guessed quickly.
 */
@ApiTags('metrics')
@Public()
@ThrottlePerIp()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
  ) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'getMetrics',
    summary: 'Prometheus metrics (text exposition format)',
    description:
      'Counters, histograms and gauges of this replica; docs/operations.md lists them. Needs `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN is set; ' +
      'answers 404 NOT_FOUND, like an unknown route, when METRICS_ENABLED=false.',
  })
  @ApiSecurity({})
  @ApiBearerAuth('metrics')
  @ApiProduces(CONTENT_TYPE)
  @ApiResponse({
    status: 200,
    description: 'Every metric of this replica.',
    content: { [CONTENT_TYPE]: { schema: { type: 'string' }, example: EXAMPLE } },
  })
  @ApiErrors('UNAUTHORIZED', 'NOT_FOUND', 'RATE_LIMITED')
  async scrape(@Req() req: Request, @Res({ passthrough: true }) res: Response): Promise<string> {
    // The same answer as a route that does not exist.
    if (!this.config.metrics.enabled) throw new NotFoundException();
    const token = this.config.metrics.token;
    if (token !== null) {
      const header = req.headers.authorization ?? '';
      const given = header.startsWith('Bearer ') ? header.slice(7) : '';
      if (!given || !safeEqualString(given, token))
        throw new ApiError('UNAUTHORIZED', 'A valid metrics token is required (Authorization: Bearer <METRICS_TOKEN>)');
    }
    const body = await this.metrics.scrape();
    // Set here, not with @Header: that would also label an error envelope as text.
    res.type(this.metrics.contentType);
    return body;
  }
}
