import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, Repository } from 'typeorm';
import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { DEFAULT_SCOPE, TemplateEntity } from './entities/template.entity';
import { TemplateViewMapper } from './template-view.mapper';
import type { TemplateForSend, TemplateStatus, TemplateView } from './template.types';

/** Reading templates (own or default) and status moves. Creation lives in TemplateCreationService. */
@Injectable()
export class TemplatesService {
  constructor(
    @InjectRepository(TemplateEntity) private readonly templates: Repository<TemplateEntity>,
    private readonly mapper: TemplateViewMapper,
    private readonly clock: Clock,
  ) {}

  /**
   * Contract with messaging: the account's own template or a default one, whatever its status (the
   * caller refuses statuses other than approved/active), or null when neither exists.
   */
  async findForSend(accountId: string, templateId: string): Promise<TemplateForSend | null> {
    const t = await this.findVisible(accountId, templateId);
    return t ? this.mapper.toForSend(t) : null;
  }

  async get(accountId: string, templateId: string): Promise<TemplateView> {
    const t = await this.findVisible(accountId, templateId);
    if (!t) throw new ApiError('NOT_FOUND', 'Template not found');
    return this.mapper.toView(t, accountId);
  }

  /** Operator move (admin route, provider callback, poll). */
  async setStatus(templateId: string, status: TemplateStatus, reason: string | null = null): Promise<TemplateView> {
    const t = await this.templates.findOne({ where: { id: templateId } });
    if (!t) throw new ApiError('NOT_FOUND', 'Template not found');
    t.status = status;
    t.rejectionReason = status === 'rejected' ? reason : null;
    t.updatedAt = this.clock.now();
    await this.templates.update({ id: t.id }, { status: t.status, rejectionReason: t.rejectionReason, updatedAt: t.updatedAt });
    return this.mapper.toView(t, t.accountId);
  }

  /** Provider callback: by the provider's template id. Returns how many rows moved. */
  async setStatusByProviderId(providerTemplateId: string, status: TemplateStatus, reason: string | null): Promise<number> {
    const res = await this.templates.update(
      { providerTemplateId, provider: 'official' },
      { status, rejectionReason: status === 'rejected' ? reason : null, updatedAt: this.clock.now() },
    );
    return res.affected ?? 0;
  }

  private async findVisible(accountId: string, templateId: string): Promise<TemplateEntity | null> {
    if (typeof templateId !== 'string' || templateId.length === 0 || templateId.length > 40) return null;
    return this.templates.findOne({ where: { id: templateId, scope: In([accountId, DEFAULT_SCOPE]) } });
  }
}
