import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../config/app-config';
import { refusedTargetText, TargetPolicy, TargetRefusedError } from '../common/net/target-policy';
import { MetricsService, ProviderCallOutcome } from '../metrics/metrics.service';
import { ProvidersRegistry } from '../providers/providers.registry';
import { failedCallOutcome, toApiError } from '../providers/provider-errors';
import { ChannelProvider, OutboundMessage, ProviderError, ProviderOutcome } from '../providers/provider.types';
import { TEMPLATE_LOOKUP, type TemplateRouteLookup } from './validation/lookups';
import type { ValidatedMessage } from './validation/validated-message';
import type { AccountId } from '../common/account-id';

/**
 * Calls the channel's configured provider with a timeout (config.providers.timeoutMs) around every
 * adapter, and turns every failure into a stable ApiError (providers/provider-errors.ts). A
 * rejection is an outcome, not an error.
 */
@Injectable()
export class ProviderGateway {
  constructor(
    private readonly registry: ProvidersRegistry,
    private readonly config: AppConfig,
    private readonly targets: TargetPolicy,
    @Inject(TEMPLATE_LOOKUP) private readonly templates: TemplateRouteLookup,
    private readonly metrics: MetricsService,
  ) {}

  /** The longest a provider call may take (PROVIDER_TIMEOUT_MS). */
  get timeoutMs(): number {
    return this.config.providers.timeoutMs;
  }

  async send(out: OutboundMessage): Promise<ProviderOutcome> {
    const provider = this.registry.forChannel(out.channel, out.accountId);
    const routed = await this.routeTemplate(out);
    // Timed from the adapter call (a target refused before it is no provider call) to its verdict or timeout.
    let started: number | null = null;
    const observe = (outcome: ProviderCallOutcome) => {
      if (started !== null)
        this.metrics.observeProviderCall(out.accountId, out.channel, outcome, (performance.now() - started) / 1000);
    };
    try {
      const outcome = await this.guard(async () => {
        const checked = await this.recheckTargets(routed, provider);
        if (checked.status === 'rejected') return checked;
        started = performance.now();
        return provider.send(checked.out);
      });
      observe(outcome.status);
      return outcome;
    } catch (err) {
      observe(failedCallOutcome(err));
      throw err;
    }
  }

  /**
   * An official chat-app template goes out from its official sender's number, read now (not when the
   * message was accepted): a scheduled or bulk send follows the sender as it is at send time, and
   * payloads stored before routing existed need nothing stored. A template no longer visible to the
   * account routes nowhere (the adapter refuses it rather than guess a number).
   */
  private async routeTemplate(out: OutboundMessage): Promise<OutboundMessage> {
    if (!out.template || out.channel !== 'chatapp') return out;
    const route = await this.templates.routeForSend(out.accountId, out.template.id);
    return { ...out, template: { ...out.template, route } };
  }

  /**
   * Scheduled and bulk sends run long after validation: the attachment and header media URLs pass
   * the target rules again now (DNS may have changed), and adapters get their normalised form. An
   * adapter that downloads the attachment through the guarded fetcher (SMTP) checks it at the fetch,
   * every hop included, so it is not checked (nor its host resolved) here as well.
   */
  private async recheckTargets(
    out: OutboundMessage,
    provider: ChannelProvider,
  ): Promise<{ status: 'ok'; out: OutboundMessage } | Extract<ProviderOutcome, { status: 'rejected' }>> {
    const refused = (field: string) => ({
      status: 'rejected' as const,
      code: 'INVALID_ATTACHMENT' as const,
      message: refusedTargetText(field),
    });
    let attachment = out.attachment ?? null;
    let template = out.template ?? null;
    if (attachment && !provider.fetchesAttachments) {
      const url = await this.recheck(attachment.url);
      if (url === null) return refused('attachment.url');
      attachment = { ...attachment, url };
    }
    if (template?.headerMediaUrl) {
      const headerMediaUrl = await this.recheck(template.headerMediaUrl);
      if (headerMediaUrl === null) return refused('template.headerMediaUrl');
      template = { ...template, headerMediaUrl };
    }
    return { status: 'ok', out: { ...out, attachment, template } };
  }

  /** TargetPolicy.normalise, null when the target is refused. */
  private async recheck(url: string): Promise<string | null> {
    try {
      return await this.targets.normalise(url);
    } catch (err) {
      if (err instanceof TargetRefusedError) return null;
      throw err;
    }
  }

  /** Can the channel's provider tell later whether it received a message id? */
  canLookup(channel: OutboundMessage['channel'], accountId: AccountId): boolean {
    return typeof this.registry.forChannel(channel, accountId).lookup === 'function';
  }

  /** The provider's verdict on a message id, null when it never saw it (or cannot tell). */
  async lookup(
    channel: OutboundMessage['channel'],
    accountId: AccountId,
    messageId: string,
  ): Promise<ProviderOutcome | null> {
    const provider = this.registry.forChannel(channel, accountId);
    if (!provider.lookup) return null;
    return this.guard(() => provider.lookup!(messageId));
  }

  private async guard<T>(call: () => Promise<T>): Promise<T> {
    const ms = this.config.providers.timeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ProviderError('unavailable', `Provider did not answer within ${ms} ms`)), ms);
    });
    try {
      return await Promise.race([call(), timeout]);
    } catch (err) {
      throw toApiError(err);
    } finally {
      clearTimeout(timer);
    }
  }
}

export function toOutbound(
  id: string,
  accountId: AccountId,
  m: ValidatedMessage,
  origin: { bulkJobId?: string; rowIndex?: number; instantReceipts?: boolean },
): OutboundMessage {
  return {
    messageId: id,
    accountId,
    channel: m.channel,
    to: m.to,
    sender: m.sender,
    text: m.text,
    subject: m.subject,
    html: m.html,
    // The sender route is resolved by ProviderGateway.send, at the provider call.
    template: m.template ? { ...m.template, route: null } : null,
    attachment: m.attachment,
    session: m.session,
    bulkJobId: origin.bulkJobId ?? null,
    rowIndex: origin.rowIndex ?? null,
    ...(origin.instantReceipts ? { instantReceipts: true } : {}),
  };
}
