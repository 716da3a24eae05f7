import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { FindOptionsWhere, In, Repository } from 'typeorm';
import { UnitOfWork } from '../database/unit-of-work';
import { DomainEvent, EVENT_SINK, EventSink } from '../messaging/events/event-sink';
import { Clock } from '../common/clock';
import { CursorCodec, Page } from '../common/cursor';
import { ApiError } from '../common/errors';
import type { ListTemplatesQuery } from './dto/list-templates.query';
import { DEFAULT_SCOPE, REJECTION_REASON_MAX, TemplateEntity } from './entities/template.entity';
import { OfficialSendersService } from './official/official-senders.service';
import { TemplateViewMapper } from './template-view.mapper';
import type { TemplateRoute } from '../providers/provider.types';
import type { TemplateForSend } from '../messaging/validation/lookups';
import type { TemplateStatus, TemplateView } from './template.types';
import type { AccountId } from '../common/account-id';

/** Reading templates (own or default) and status moves. Creation lives in TemplateCreationService. */
@Injectable()
export class TemplatesService {
  constructor(
    @InjectRepository(TemplateEntity) private readonly templates: Repository<TemplateEntity>,
    private readonly mapper: TemplateViewMapper,
    private readonly clock: Clock,
    private readonly cursors: CursorCodec,
    private readonly senders: OfficialSendersService,
    private readonly uow: UnitOfWork,
    @Inject(EVENT_SINK) private readonly events: EventSink,
  ) {}

  /**
   * Contract with messaging: the account's own template or a default one, whatever its status (the
   * caller refuses statuses other than approved/active), or null when neither exists.
   */
  async findForSend(accountId: AccountId, templateId: string): Promise<TemplateForSend | null> {
    const t = await this.findVisible(accountId, templateId);
    return t ? this.mapper.toForSend(t) : null;
  }

  /**
   * Contract with the provider gateway: the number a visible template goes out from (an official
   * template: its official sender's, read now; others: the platform's), or null when not visible.
   */
  async routeForSend(accountId: AccountId, templateId: string): Promise<TemplateRoute | null> {
    const t = await this.findVisible(accountId, templateId);
    if (!t) return null;
    return t.provider === 'official' ? this.senders.routeOf(t.accountId, t.officialSenderId) : { via: 'platform' };
  }

  async get(accountId: AccountId, templateId: string): Promise<TemplateView> {
    const t = await this.findVisible(accountId, templateId);
    if (!t) throw new ApiError('NOT_FOUND', 'Template not found');
    return this.mapper.toView(t, accountId);
  }

  /** Own and default templates, newest first; the cursor is the last id seen. */
  async list(accountId: AccountId, q: ListTemplatesQuery): Promise<Page<TemplateView>> {
    const scopeKey = `templates:${accountId}`;
    const after = this.cursors.decode<string>(scopeKey, q.cursor);
    if (after !== null && typeof after !== 'string') throw ApiError.validation('cursor is invalid');
    const limit = q.limit ?? 50;
    const qb = this.templates
      .createQueryBuilder('t')
      .where('t.scope IN (:...scopes)', { scopes: [accountId, DEFAULT_SCOPE] });
    if (q.category) qb.andWhere('t.category = :category', { category: q.category });
    if (q.status) qb.andWhere('t.status = :status', { status: q.status });
    if (q.provider) qb.andWhere('t.provider = :provider', { provider: q.provider });
    const name = q.name;
    if (name) qb.andWhere("t.name LIKE :name ESCAPE '!'", { name: `${name.replace(/[!%_]/g, '!$&')}%` });
    if (after) qb.andWhere('t.id < :after', { after });
    const rows = await qb
      .orderBy('t.id', 'DESC')
      .limit(limit + 1)
      .getMany();
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit);
    const items = await this.mapper.toViews(page, accountId);
    return { items, hasMore, nextCursor: hasMore ? this.cursors.encode(scopeKey, page[page.length - 1].id) : null };
  }

  /** Operator review list: templates of every account (defaults included), newest first, by status. */
  async listForOperator(q: {
    status?: TemplateStatus;
    cursor?: string;
    limit?: number;
  }): Promise<Page<TemplateView & { accountId: AccountId | null }>> {
    const scopeKey = 'admin:templates';
    const after = this.cursors.decode<string>(scopeKey, q.cursor);
    if (after !== null && typeof after !== 'string') throw ApiError.validation('cursor is invalid');
    const limit = q.limit ?? 50;
    const qb = this.templates.createQueryBuilder('t');
    if (q.status) qb.andWhere('t.status = :status', { status: q.status });
    if (after) qb.andWhere('t.id < :after', { after });
    const rows = await qb
      .orderBy('t.id', 'DESC')
      .limit(limit + 1)
      .getMany();
    const hasMore = rows.length > limit;
    const page = rows.slice(0, limit);
    const items = await Promise.all(
      page.map(async (t) => ({ ...(await this.mapper.toView(t, t.accountId)), accountId: t.accountId })),
    );
    return { items, hasMore, nextCursor: hasMore ? this.cursors.encode(scopeKey, page[page.length - 1].id) : null };
  }

  /** Operator move (admin route), on any account's or a default template: the template's view after the move. */
  async setStatusForOperator(
    templateId: string,
    status: TemplateStatus,
    reason: string | null = null,
  ): Promise<TemplateView> {
    const t = await this.templates.findOne({ where: { id: templateId } });
    if (!t) throw new ApiError('NOT_FOUND', 'Template not found');
    const change = this.statusChange(status, reason);
    await this.move({ id: t.id }, [t], change);
    return this.mapper.toView(Object.assign(t, change), t.accountId);
  }

  /**
   * A review decision on one of the account's own templates (test-mode controls: the owner plays the
   * provider's reviewer for the test account); a default or another account's template is NOT_FOUND.
   * The same move, events included, as the operator's.
   */
  async setStatusOfAccount(
    accountId: AccountId,
    templateId: string,
    status: TemplateStatus,
    reason: string | null,
  ): Promise<TemplateView> {
    const t = await this.templates.findOne({ where: { id: templateId, accountId } });
    if (!t) throw new ApiError('NOT_FOUND', 'Template not found');
    const change = this.statusChange(status, reason);
    await this.move({ id: t.id, accountId }, [t], change);
    return this.mapper.toView(Object.assign(t, change), accountId);
  }

  /** Status poll (a background loop over every account's templates): the move alone. Returns whether the template exists. */
  async setStatusOfAny(templateId: string, status: TemplateStatus, reason: string | null): Promise<boolean> {
    const rows = await this.templates.find({ where: { id: templateId } });
    return (await this.move({ id: templateId }, rows, this.statusChange(status, reason))) > 0;
  }

  /** Provider callback, keyed by the provider's template id (whichever account holds it). Returns how many rows moved. */
  async setStatusOfAnyByProviderId(
    providerTemplateId: string,
    status: TemplateStatus,
    reason: string | null,
  ): Promise<number> {
    const where: FindOptionsWhere<TemplateEntity> = { providerTemplateId, provider: 'official' };
    return this.move(where, await this.templates.find({ where }), this.statusChange(status, reason));
  }

  /**
   * The status UPDATE and, in the same unit, template.approved / template.rejected for each account
   * template (read as `before`) that this move changes. Views are built before the unit opens (they
   * read official senders). Returns the rows updated.
   */
  private async move(
    where: FindOptionsWhere<TemplateEntity>,
    before: TemplateEntity[],
    change: ReturnType<TemplatesService['statusChange']>,
  ): Promise<number> {
    const moving =
      change.status === 'approved' || change.status === 'rejected'
        ? before.filter((t) => t.accountId !== null && t.status !== change.status)
        : [];
    const views = await Promise.all(moving.map((t) => this.mapper.toView({ ...t, ...change }, t.accountId)));
    const type = `template.${change.status}` as DomainEvent['type'];
    const events: DomainEvent[] = moving.map((t, i) => ({
      accountId: t.accountId as AccountId,
      type,
      data: { ...views[i] },
      at: change.updatedAt,
    }));
    return this.uow.transaction(async (tx) => {
      const res = await tx.manager.update(TemplateEntity, where, change);
      if (events.length) await this.events.record(tx, events);
      return res.affected ?? 0;
    });
  }

  /** Every status move writes this: the reason only when rejected, cut to its column (provider text is unbounded). */
  private statusChange(
    status: TemplateStatus,
    reason: string | null,
  ): Pick<TemplateEntity, 'status' | 'rejectionReason' | 'updatedAt'> {
    const rejectionReason = status === 'rejected' && reason !== null ? reason.slice(0, REJECTION_REASON_MAX) : null;
    return { status, rejectionReason, updatedAt: this.clock.now() };
  }

  private async findVisible(accountId: AccountId, templateId: string): Promise<TemplateEntity | null> {
    if (typeof templateId !== 'string' || templateId.length === 0 || templateId.length > 40) return null;
    return this.templates.findOne({ where: { id: templateId, scope: In([accountId, DEFAULT_SCOPE]) } });
  }
}
