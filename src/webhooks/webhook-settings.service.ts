import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { Repository } from 'typeorm';
import { AUDIT_TRAIL, AuditTrail, AuditValue } from '../common/audit/audit-trail';
import { Clock } from '../common/clock';
import { ApiError } from '../common/errors';
import { newId } from '../common/ids';
import { iso } from '../database/columns';
import { SecretBox } from '../common/secret-box';
import { isUniqueViolation } from '../database/db-errors';
import { WebhookEndpointEntity } from './entities/webhook-endpoint.entity';
import { WebhooksService } from './webhooks.service';
import type { AccountId } from '../common/account-id';

export interface WebhookSettingsView {
  url: string;
  /** In full only when just created or rotated; masked (`whk_****abcd`) otherwise. */
  webhookApiKey: string;
}

export const TEST_EVENT = 'webhook.test';

/** Developer settings: the account's web-session webhook URL and its generated WEBHOOK_API_KEY. */
@Injectable()
export class WebhookSettingsService {
  constructor(
    @InjectRepository(WebhookEndpointEntity) private readonly endpoints: Repository<WebhookEndpointEntity>,
    private readonly webhooks: WebhooksService,
    private readonly secretBox: SecretBox,
    private readonly clock: Clock,
    @Inject(AUDIT_TRAIL) private readonly audit: AuditTrail,
  ) {}

  async get(accountId: AccountId): Promise<WebhookSettingsView> {
    return masked(await this.require(accountId));
  }

  /** Sets the URL; the first call generates the key (shown in full), later calls keep it (masked). */
  async put(accountId: AccountId, url: string): Promise<WebhookSettingsView> {
    await this.webhooks.assertAllowedTarget(url, 'url');
    const before = (await this.endpoints.findOneBy({ accountId, kind: 'chatapp_web' }))?.url ?? null;
    const view = await this.write(accountId, url);
    // No unit spans these TypeORM writes: the entry follows the change.
    await this.changed(accountId, { url: { before, after: url } });
    return view;
  }

  private async write(accountId: AccountId, url: string): Promise<WebhookSettingsView> {
    const now = this.clock.now();
    const updated = await this.endpoints.update({ accountId, kind: 'chatapp_web' }, { url, updatedAt: now });
    if (updated.affected) return this.get(accountId);
    const key = generateKey();
    try {
      await this.endpoints.insert({
        id: newId('whe'),
        accountId,
        kind: 'chatapp_web',
        url,
        sealedSecret: this.secretBox.seal(key),
        secretLast4: key.slice(-4),
        createdAt: now,
        updatedAt: now,
      });
    } catch (err) {
      // A concurrent PUT created it first: this one becomes an update of the URL.
      if (!isUniqueViolation(err)) throw err;
      await this.endpoints.update({ accountId, kind: 'chatapp_web' }, { url, updatedAt: now });
      return this.get(accountId);
    }
    return { url, webhookApiKey: key };
  }

  async rotateKey(accountId: AccountId): Promise<WebhookSettingsView> {
    const row = await this.require(accountId);
    const key = generateKey();
    await this.endpoints.update(
      { id: row.id, accountId },
      { sealedSecret: this.secretBox.seal(key), secretLast4: key.slice(-4), updatedAt: this.clock.now() },
    );
    await this.changed(accountId, { webhookApiKey: 'rotated' });
    return { url: row.url, webhookApiKey: key };
  }

  async remove(accountId: AccountId): Promise<void> {
    const res = await this.endpoints.delete({ accountId, kind: 'chatapp_web' });
    if (!res.affected) throw notConfigured();
    await this.changed(accountId, { url: { before: null, after: null }, removed: true });
  }

  private async changed(accountId: AccountId, changes: Record<string, AuditValue>): Promise<void> {
    await this.audit.record({ accountId, type: 'webhook.settings_changed', target: 'chatapp_web', changes });
  }

  /** Queues a `webhook.test` event to the configured URL, signed like real web-session events. */
  async sendTest(accountId: AccountId): Promise<{ deliveryId: string; event: string }> {
    const row = await this.require(accountId);
    const now = this.clock.now();
    const { deliveryId } = await this.webhooks.enqueue(null, {
      accountId,
      url: row.url,
      event: TEST_EVENT,
      sealedSecret: row.sealedSecret,
      apiKeyHeader: true,
      body: { event: TEST_EVENT, timestamp: iso(now), data: { message: 'Test event from developer settings' } },
    });
    return { deliveryId, event: TEST_EVENT };
  }

  private async require(accountId: AccountId): Promise<WebhookEndpointEntity> {
    const row = await this.endpoints.findOneBy({ accountId, kind: 'chatapp_web' });
    if (!row) throw notConfigured();
    return row;
  }
}

function generateKey(): string {
  return `whk_${randomBytes(24).toString('base64url')}`;
}

function masked(row: WebhookEndpointEntity): WebhookSettingsView {
  return { url: row.url, webhookApiKey: `whk_****${row.secretLast4}` };
}

function notConfigured(): ApiError {
  return new ApiError('NOT_FOUND', 'Web-session webhook not configured');
}
