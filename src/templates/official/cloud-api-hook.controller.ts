import { Body, Controller, Get, Headers, HttpCode, Inject, Post, Query, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { Public, ThrottlePerIp } from '../../auth/decorators';
import { Clock } from '../../common/clock';
import { safeEqualString } from '../../common/constant-time';
import { ApiError } from '../../common/errors';
import { AppConfig } from '../../config/app-config';
import {
  changesOf,
  inboundTextsFromWebhook,
  receiptsFromWebhook,
  verifyHubSignature,
} from '../../providers/cloud-api/cloud-api-statuses';
import { INBOUND_KEYWORDS, type InboundKeywords } from '../../messaging/inbound/inbound-keywords';
import { RECEIPT_INTAKE, type ReceiptIntake } from '../../providers/provider-events';
import { TemplatesService } from '../templates.service';
import { OfficialSendersService } from './official-senders.service';
import { mapProviderStatus, providerReason } from './provider-template-status';

/**
 * The Cloud API app's webhook callback (one URL per app gets every subscribed field):
 * `messages` statuses become receipts (RECEIPT_INTAKE), `message_template_status_update` moves
 * templates like /hooks/chatapp/template-status does, and `messages` texts from contacts go to
 * INBOUND_KEYWORDS for the account whose own number received them (channel chatapp; texts to the
 * shared platform number belong to no one account and are not handled). Signed by the provider with
 * X-Hub-Signature-256 (CHATAPP_CLOUD_APP_SECRET); GET is its subscription check
 * (CHATAPP_CLOUD_VERIFY_TOKEN). Both refuse everything while their setting is unset.
 */
@ApiExcludeController()
@Public()
@ThrottlePerIp()
@Controller('hooks/chatapp/messages')
export class CloudApiHookController {
  constructor(
    @Inject(RECEIPT_INTAKE) private readonly receipts: ReceiptIntake,
    private readonly templates: TemplatesService,
    private readonly officialSenders: OfficialSendersService,
    @Inject(INBOUND_KEYWORDS) private readonly keywords: InboundKeywords,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  @Get()
  verify(
    @Query('hub.mode') mode: unknown,
    @Query('hub.verify_token') token: unknown,
    @Query('hub.challenge') challenge: unknown,
    @Res({ passthrough: true }) res: Response,
  ): string {
    const expected = this.config.chatapp.verifyToken;
    if (
      !expected ||
      mode !== 'subscribe' ||
      typeof token !== 'string' ||
      !safeEqualString(token, expected) ||
      typeof challenge !== 'string'
    ) {
      throw new ApiError('FORBIDDEN', 'Webhook verification token missing or invalid');
    }
    // Set here, not with @Header: a refusal keeps the JSON error envelope.
    res.type('text/plain');
    return challenge;
  }

  @Post()
  @HttpCode(200)
  async receive(
    @Headers('x-hub-signature-256') signature: string | undefined,
    @Req() req: Request & { rawBody?: Buffer },
    @Body() body: unknown,
  ): Promise<{ ok: true; receipts: number; templates: number }> {
    const secret = this.config.chatapp.appSecret;
    if (!secret || !verifyHubSignature(secret, signature, req.rawBody ?? null)) {
      throw new ApiError('UNAUTHORIZED', 'Webhook signature missing or invalid');
    }
    const receipts = receiptsFromWebhook(body, this.clock.now());
    // Stored before the 200: a failure answers 500 and the provider sends the batch again.
    if (receipts.length > 0) await this.receipts.accept(receipts);
    for (const m of inboundTextsFromWebhook(body, this.clock.now())) {
      const accounts = await this.officialSenders.accountsOfPhoneNumberId(m.phoneNumberId);
      if (accounts.length !== 1) continue;
      await this.keywords.handle({
        accountId: accounts[0],
        channel: 'chatapp',
        from: m.from,
        to: m.phoneNumberId,
        text: m.text,
        inboundMessageId: m.id,
        at: m.at,
      });
    }
    let templates = 0;
    for (const value of changesOf(body, 'message_template_status_update')) {
      const status = mapProviderStatus(value.event);
      const id = value.message_template_id;
      if (!status || (typeof id !== 'string' && typeof id !== 'number')) continue;
      templates += await this.templates.setStatusOfAnyByProviderId(String(id), status, providerReason(value.reason));
    }
    return { ok: true, receipts: receipts.length, templates };
  }
}
