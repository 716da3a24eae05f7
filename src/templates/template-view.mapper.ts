import { Injectable } from '@nestjs/common';
import { isLiveAccount } from '../accounts/account-mode';
import { AppConfig } from '../config/app-config';
import { iso } from '../database/columns';
import { DEFAULT_SCOPE, TemplateEntity } from './entities/template.entity';
import { previewUrlOf } from './media/preview-url';
import { OfficialSendersService, PLATFORM_SENDER_ID } from './official/official-senders.service';
import type { TemplateForSend } from '../messaging/validation/lookups';
import type { OfficialSenderView, SmsTemplateCreatedView, TemplateView } from './template.types';
import type { AccountId } from '../common/account-id';

/** Entity -> API shapes. The only place a template row becomes a response. */
@Injectable()
export class TemplateViewMapper {
  constructor(
    private readonly config: AppConfig,
    private readonly senders: OfficialSendersService,
  ) {}

  previewUrl(assetId: string | null): string | null {
    return assetId ? previewUrlOf(this.config, assetId) : null;
  }

  async toView(t: TemplateEntity, viewerAccountId: AccountId | null): Promise<TemplateView> {
    return (await this.toViews([t], viewerAccountId))[0];
  }

  /** Many rows: each distinct official sender is read once. */
  async toViews(rows: TemplateEntity[], viewerAccountId: AccountId | null): Promise<TemplateView[]> {
    const senders = new Map<string, Promise<OfficialSenderView | null>>();
    const senderOf = (id: string | null) => {
      if (id === null) return Promise.resolve(null);
      if (!senders.has(id)) senders.set(id, this.senders.viewOf(viewerAccountId, id));
      return senders.get(id) as Promise<OfficialSenderView | null>;
    };
    const out: TemplateView[] = [];
    for (const t of rows)
      out.push(this.map(t, t.provider === 'official' ? await senderOf(t.officialSenderId) : null, viewerAccountId));
    return out;
  }

  private map(
    t: TemplateEntity,
    officialSender: OfficialSenderView | null,
    viewerAccountId: AccountId | null,
  ): TemplateView {
    const params = [...(t.bodyParameters ?? [])].sort((a, b) => a.index - b.index);
    return {
      id: t.id,
      name: t.name,
      category: t.category,
      subType: t.subType,
      status: t.status,
      language: t.language || null,
      body: t.body,
      bodyParameters: params,
      headerType: t.headerType,
      headerValue: t.headerType === 'text' ? t.headerValue : null,
      headerAssetId: t.headerAssetId,
      headerPreviewUrl: this.previewUrl(t.headerAssetId),
      allowsHeaderMediaOverride: t.allowsHeaderMediaOverride,
      footer: t.footer,
      buttons: t.buttons ?? [],
      urlButtonVariables: t.urlButtonVariables ?? [],
      indexedPlaceholders: Array.from({ length: t.variableCount }, (_, i) => `{{${i + 1}}}`),
      content: t.content,
      emailSubject: t.emailSubject,
      parameters: params.map((p) => p.label),
      provider: t.provider,
      providerTemplateId: t.providerTemplateId,
      manualProvider: t.manualProvider,
      creationMode: t.creationMode,
      officialSenderId: t.officialSenderId,
      officialSender,
      isPlatformNumber: t.officialSenderId === PLATFORM_SENDER_ID,
      isDefault: t.scope === DEFAULT_SCOPE,
      otp: t.otp,
      rejectionReason: t.rejectionReason,
      createdAt: iso(t.createdAt) as string,
      livemode: livemodeOf(t, viewerAccountId),
    };
  }

  toSmsCreated(t: TemplateEntity): SmsTemplateCreatedView {
    return { id: t.id, name: t.name, category: t.category, status: t.status, livemode: livemodeOf(t, t.accountId) };
  }

  toForSend(t: TemplateEntity): TemplateForSend {
    return {
      id: t.id,
      name: t.name,
      category: t.category,
      subType: t.subType,
      status: t.status,
      provider: t.provider,
      language: t.language || null,
      body: t.body,
      content: t.content,
      emailSubject: t.emailSubject,
      variableCount: t.variableCount,
      buttons: (t.buttons ?? []).map((b) => ({ type: b.type, text: b.text, url: b.url })),
      allowsHeaderMediaOverride: t.allowsHeaderMediaOverride,
      providerTemplateId: t.providerTemplateId,
    };
  }
}

/** A default template belongs to no account: both modes share it, and it reads in the mode of its reader. */
function livemodeOf(t: TemplateEntity, viewerAccountId: AccountId | null): boolean {
  const owner = t.accountId ?? viewerAccountId;
  return owner === null || isLiveAccount(owner);
}
