import { Body, Controller, Headers, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request } from 'express';
import { Public, ThrottlePerIp } from '../../auth/decorators';
import { WahaHookResult, WahaHookService } from './waha-hook.service';

/** WAHA's webhook into us; authenticated by the session's HMAC key, not by an API key. */
@ApiExcludeController()
@Public()
@ThrottlePerIp()
@Controller('hooks/waha')
export class WahaHookController {
  constructor(private readonly hooks: WahaHookService) {}

  @Post(':sessionRef')
  @HttpCode(200)
  async receive(
    @Param('sessionRef') sessionRef: string,
    @Headers('x-webhook-hmac') signature: string | undefined,
    @Req() req: Request & { rawBody?: Buffer },
    @Body() body: unknown,
  ): Promise<WahaHookResult> {
    return this.hooks.handle(sessionRef, signature, req.rawBody ?? null, body);
  }
}
