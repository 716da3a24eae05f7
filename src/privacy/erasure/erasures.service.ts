import { Inject, Injectable } from '@nestjs/common';
import { AUDIT_TRAIL, AuditTrail } from '../../common/audit/audit-trail';
import { Clock } from '../../common/clock';
import { ApiError } from '../../common/errors';
import { newId } from '../../common/ids';
import { RecipientHasher } from '../../common/recipient-hasher';
import { AppConfig } from '../../config/app-config';
import { UnitOfWork } from '../../database/unit-of-work';
import { ErasureRunner } from './erasure-runner';
import { erasureForms } from './erasure-target';
import { erasureView, ErasureView } from './erasure.view';
import { ErasureRecord, ErasuresRepository } from './erasures.repository';
import type { AccountId } from '../../common/account-id';

/**
 * Requests and reads erasures. One erasure per recipient and account: a request while it runs
 * answers the running one; a request after it completed runs it again (same id, counts add up), so
 * rows that named the recipient since are erased too. The request is audited in the same unit.
 */
@Injectable()
export class ErasuresService {
  constructor(
    private readonly erasures: ErasuresRepository,
    private readonly runner: ErasureRunner,
    private readonly hasher: RecipientHasher,
    @Inject(AUDIT_TRAIL) private readonly audit: AuditTrail,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  async request(accountId: AccountId, recipient: string): Promise<ErasureView> {
    const [normalised] = erasureForms(recipient, this.config.messaging.defaultRegion);
    const hash = this.hasher.hash(accountId, normalised);
    const now = this.clock.now();
    const erasure = await this.uow.transaction(async () => {
      const found = await this.erasures.findByHash(accountId, hash);
      if (found?.status === 'running') return found;
      if (found) {
        if (!(await this.erasures.reopen(accountId, found.id, normalised, now))) return found;
      } else {
        const fresh: ErasureRecord = {
          id: newId('era'),
          accountId,
          recipientHash: hash,
          recipient: normalised,
          status: 'running',
          counts: {},
          run: 1,
          createdAt: now,
          updatedAt: now,
          completedAt: null,
        };
        // A concurrent request inserted it first: answer that one.
        if (!(await this.erasures.insert(fresh))) return this.erasures.findByHash(accountId, hash);
      }
      const saved = await this.erasures.findByHash(accountId, hash);
      if (saved)
        await this.audit.record({
          accountId,
          type: 'privacy.erasure_requested',
          target: saved.id,
          changes: { erasureId: saved.id, recipientHash: hash, run: saved.run },
        });
      return saved;
    });
    if (!erasure) throw new Error('erasure vanished after it was written');
    this.uow.afterCommit(() => this.runner.kick());
    return erasureView(erasure);
  }

  async get(accountId: AccountId, id: string): Promise<ErasureView> {
    const e = await this.erasures.find(accountId, id);
    if (!e) throw ApiError.notFound('Erasure');
    return erasureView(e);
  }
}
