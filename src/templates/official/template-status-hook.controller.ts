import { Body, Controller, Get, Headers, HttpCode, Post, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { safeEqualString } from '../../common/constant-time';
import { Public, ThrottlePerIp } from '../../auth/decorators';
import { AppConfig } from '../../config/app-config';
import { ApiError } from '../../common/errors';
import { TemplatesService } from '../templates.service';
import { mapProviderStatus, providerReason } from './provider-template-status';

interface StatusChange {
  field?: string;
  value?: { event?: string; message_template_id?: string | number; reason?: string | null };
}

/**
 * The official provider's template-status callback (Cloud API `message_template_status_update`).
 * Authenticated with CHATAPP_CLOUD_WEBHOOK_SECRET given as `?token=`, `Authorization: Bearer` or
 * `X-Webhook-Secret`; refused (401) for everything when the secret is not configured.
 */
@ApiExcludeController()
@ThrottlePerIp()
@Controller('hooks/chatapp/template-status')
export class TemplateStatusHookController {
  constructor(
    private readonly templates: TemplatesService,
    private readonly config: AppConfig,
  ) {}

  /** Provider's subscription check: echo hub.challenge when hub.verify_token is the secret. */
  @Get()
  @Public()
  verify(
    @Query('hub.verify_token') token: string | undefined,
    @Query('hub.challenge') challenge: string | undefined,
  ): string {
    this.authenticate(token);
    return challenge ?? '';
  }

  @Post()
  @Public()
  @HttpCode(200)
  async receive(
    @Body() body: { entry?: { changes?: StatusChange[] }[] } | undefined,
    @Query('token') token: string | undefined,
    @Headers('authorization') authorization: string | undefined,
    @Headers('x-webhook-secret') headerSecret: string | undefined,
  ): Promise<{ ok: true; updated: number }> {
    this.authenticate(token ?? headerSecret ?? authorization?.replace(/^Bearer\s+/i, ''));
    let updated = 0;
    for (const entry of Array.isArray(body?.entry) ? body.entry : []) {
      for (const change of Array.isArray(entry?.changes) ? entry.changes : []) {
        if (change?.field !== 'message_template_status_update') continue;
        const status = mapProviderStatus(change.value?.event);
        const id = change.value?.message_template_id;
        if (!status || id === undefined || id === null) continue;
        updated += await this.templates.setStatusOfAnyByProviderId(
          String(id),
          status,
          providerReason(change.value?.reason),
        );
      }
    }
    return { ok: true, updated };
  }

  private authenticate(given: string | undefined): void {
    const secret = this.config.chatapp.webhookSecret;
    // Compared as SHA-256 digests: equal lengths always, so neither the time nor an early exit tells the secret's length.
    if (!secret || !safeEqualString(given ?? '', secret))
      throw new ApiError('UNAUTHORIZED', 'Webhook secret missing or invalid');
  }
}
