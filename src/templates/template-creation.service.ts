import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { CountryCode } from 'libphonenumber-js';
import { Repository } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { newId } from '../common/ids';
import type { CreateTemplateDto } from './dto/create-template.dto';
import { DEFAULT_SCOPE, TemplateEntity } from './entities/template.entity';
import type { TemplateMediaEntity } from './entities/template-media.entity';
import type { IngestedFile } from './media/media-types';
import type { UploadedMedia } from './media/multer-ingest.storage';
import { TemplateMediaService } from './media/template-media.service';
import { OfficialSendersService, ResolvedOfficialSender } from './official/official-senders.service';
import { ManualLinkVerifier } from './official/manual-link.verifier';
import {
  HeaderMediaSource,
  OfficialTemplateClient,
  OfficialTemplateReceipt,
  providerCall,
} from './official/official-template-client';
import { planTemplate, TemplatePlan } from './template-rules';
import { TemplateViewMapper } from './template-view.mapper';
import type { SmsTemplateCreatedView, TemplateStatus, TemplateView } from './template.types';
import { isUniqueViolation } from '../database/db-errors';
import type { AccountId } from '../common/account-id';

/** The 201 body minus `success`: `{ data: { template }, message? }`. */
export interface CreatedTemplate {
  data: { template: TemplateView | SmsTemplateCreatedView };
  message?: string;
}

/**
 * POST /api/v2/templates (and the admin route for default templates, `accountId` null): checks every
 * rule, stores header media, submits official templates, then stores the template. A failure at any
 * step leaves nothing behind (media stored for this request is removed again).
 */
@Injectable()
export class TemplateCreationService {
  constructor(
    @InjectRepository(TemplateEntity) private readonly templates: Repository<TemplateEntity>,
    private readonly media: TemplateMediaService,
    private readonly senders: OfficialSendersService,
    private readonly official: OfficialTemplateClient,
    private readonly links: ManualLinkVerifier,
    private readonly mapper: TemplateViewMapper,
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {}

  async create(
    accountId: AccountId | null,
    dto: CreateTemplateDto,
    upload: UploadedMedia | null,
  ): Promise<CreatedTemplate> {
    let stored: TemplateMediaEntity | null = null;
    // The uploaded or fetched temp file: storing moves it away; whatever is left is removed in finally.
    let file: IngestedFile | null = upload?.ingested ?? null;
    try {
      const sources = (dto.headerAssetId ? 1 : 0) + (upload ? 1 : 0) + (dto.headerMediaUrl ? 1 : 0);
      const plan = planTemplate(dto, sources, this.config.messaging.defaultRegion as CountryCode);
      const scope = accountId ?? DEFAULT_SCOPE;
      await this.assertNameFree(scope, dto, plan);
      const sender = plan.provider === 'official' ? await this.senders.resolve(accountId, dto.officialSenderId) : null;
      let asset: TemplateMediaEntity | null = null;
      if (dto.headerAssetId) {
        asset = await this.media.findOwned(accountId, dto.headerAssetId);
        if (!asset) throw ApiError.validation('headerAssetId does not name header media uploaded by this account');
      } else if (upload || dto.headerMediaUrl) {
        file ??= await this.media.fetch(dto.headerMediaUrl as string);
        if (plan.headerType && plan.headerType !== file.headerType) {
          throw ApiError.validation(
            `${upload ? upload.fieldname : 'headerMediaUrl'} is ${file.mimeType} (${file.headerType}) but headerType is ${plan.headerType}`,
          );
        }
        asset = stored = await this.media.store(accountId, file);
      }
      if (asset && plan.headerType && asset.headerType !== plan.headerType) {
        throw ApiError.validation(
          `headerAssetId is ${asset.mimeType} (${asset.headerType}) but headerType is ${plan.headerType}`,
        );
      }
      const receipt = plan.submitToProvider
        ? await this.submit(accountId, dto, plan, sender as ResolvedOfficialSender, asset)
        : null;
      const linked = plan.manual
        ? await this.links.verify(accountId, dto, plan, sender as ResolvedOfficialSender)
        : null;
      const entity = this.build(accountId, dto, plan, sender, asset, receipt ?? linked);
      try {
        await this.templates.insert(entity);
      } catch (err) {
        if (isUniqueViolation(err)) throw this.exists(dto, plan);
        throw err;
      }
      stored = null;
      if (entity.category === 'sms') return { data: { template: this.mapper.toSmsCreated(entity) } };
      const view = await this.mapper.toView(entity, accountId);
      return {
        data: { template: view },
        ...(receipt ? { message: 'Template submitted to the provider for review' } : {}),
      };
    } finally {
      if (stored) await this.media.remove(stored);
      await this.media.discard(file);
    }
  }

  private async assertNameFree(scope: string, dto: CreateTemplateDto, plan: TemplatePlan): Promise<void> {
    const found = await this.templates.count({
      where: { scope, category: dto.category, language: plan.language ?? '', name: dto.name },
    });
    if (found > 0) throw this.exists(dto, plan);
  }

  private exists(dto: CreateTemplateDto, plan: TemplatePlan): ApiError {
    const lang = plan.language ? ` and language ${plan.language}` : '';
    return new ApiError(
      'TEMPLATE_EXISTS',
      `A template named ${dto.name} already exists in category ${dto.category}${lang}`,
    );
  }

  private async submit(
    accountId: AccountId | null,
    dto: CreateTemplateDto,
    plan: TemplatePlan,
    sender: ResolvedOfficialSender,
    asset: TemplateMediaEntity | null,
  ): Promise<OfficialTemplateReceipt> {
    const headerType = plan.headerType ?? asset?.headerType ?? null;
    return providerCall(() =>
      this.official.submit(
        {
          name: dto.name,
          language: plan.language ?? 'en',
          subType: dto.subType,
          body: plan.text,
          bodyParameters: plan.bodyParameters,
          header: headerType
            ? {
                type: headerType,
                text: dto.headerValue ?? null,
                mediaUrl: this.mapper.previewUrl(asset?.id ?? null),
                media: asset ? this.mediaSource(asset) : null,
              }
            : null,
          footer: dto.footer ?? null,
          buttons: plan.buttons,
          otp: plan.otp,
          wabaId: sender.wabaId,
        },
        accountId,
      ),
    );
  }

  private mediaSource(asset: TemplateMediaEntity): HeaderMediaSource {
    return { mimeType: asset.mimeType, size: asset.size, read: () => this.media.readAll(asset) };
  }

  private build(
    accountId: AccountId | null,
    dto: CreateTemplateDto,
    plan: TemplatePlan,
    sender: ResolvedOfficialSender | null,
    asset: TemplateMediaEntity | null,
    receipt: (OfficialTemplateReceipt & { language?: string }) | null,
  ): TemplateEntity {
    const now = this.clock.now();
    const headerType = plan.headerType ?? asset?.headerType ?? null;
    const status: TemplateStatus = receipt ? receipt.status : 'active';
    return this.templates.create({
      id: newId('tpl'),
      scope: accountId ?? DEFAULT_SCOPE,
      accountId,
      name: dto.name,
      category: dto.category,
      subType: dto.subType,
      status,
      language: receipt?.language ?? plan.language ?? '',
      body: dto.category === 'chatapp' ? plan.text : null,
      content: dto.category === 'chatapp' ? null : plan.text,
      emailSubject: dto.emailSubject ?? null,
      bodyParameters: plan.bodyParameters,
      headerType,
      headerValue: headerType === 'text' ? (dto.headerValue ?? null) : null,
      headerAssetId: asset?.id ?? null,
      allowsHeaderMediaOverride: plan.provider === 'official' && headerType !== null && headerType !== 'text',
      footer: dto.footer ?? null,
      buttons: plan.buttons,
      urlButtonVariables: plan.urlButtonVariables,
      variableCount: plan.variableCount,
      provider: plan.provider,
      providerTemplateId: receipt?.providerTemplateId ?? dto.providerTemplateId ?? null,
      manualProvider: plan.manual ? this.config.providers.byChannel.chatapp : null,
      creationMode: plan.manual ? 'manual_external_id' : null,
      officialSenderId: sender?.view.id ?? null,
      otp: plan.otp,
      rejectionReason: null,
      createdAt: now,
      updatedAt: now,
    });
  }
}
