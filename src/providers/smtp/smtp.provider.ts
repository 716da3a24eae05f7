import { Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import nodemailer, { Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool';
import { AppConfig } from '../../config/app-config';
import type { SmtpConfig } from '../../config/adapters.config';
import { FetchFailedError, GuardedFetcher } from '../../common/net/guarded-fetcher';
import { refusedTargetText, TargetRefusedError } from '../../common/net/target-policy';
import { ChannelProvider, OutboundMessage, ProviderOutcome, whenSelected } from '../provider.types';
import { ProvidersRegistry } from '../providers.registry';
import { classifySmtpFailure } from './smtp-error';

/** Email channel over SMTP with nodemailer (`PROVIDER_EMAIL=smtp`). */
@Injectable()
export class SmtpProvider implements ChannelProvider, OnModuleInit, OnApplicationShutdown {
  readonly name = 'smtp';
  /** Attachments are downloaded through the GuardedFetcher (see download()). */
  readonly fetchesAttachments = true;
  private readonly logger = new Logger(SmtpProvider.name);
  private transporter: Transporter<SMTPPool.SentMessageInfo> | null = null;
  private from = '';
  private idDomain = '';

  constructor(
    private readonly registry: ProvidersRegistry,
    private readonly config: AppConfig,
    private readonly fetcher: GuardedFetcher,
  ) {}

  onModuleInit(): void {
    this.registry.register('email', this.name, this);
    if (this.config.smtp) this.connect(this.config.smtp);
  }

  // At application shutdown, after the loops drained: a send in flight keeps its connection.
  onApplicationShutdown(): void {
    this.transporter?.close();
    this.transporter = null;
  }

  /** A pooled transport from the `smtp` section (no network yet). */
  private connect(smtp: SmtpConfig): void {
    this.from = smtp.from;
    this.idDomain = smtp.fromDomain;
    const timeout = this.config.providers.timeoutMs;
    // maxRequeues 0 (missing from the typings): a dropped connection must surface as an error, not
    // be silently resent (duplicates). No file or URL access: attachments are handed over as bytes.
    const options: SMTPPool.Options & { maxRequeues: number } = {
      pool: true,
      maxConnections: smtp.maxConnections,
      maxRequeues: 0,
      disableFileAccess: true,
      disableUrlAccess: true,
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      requireTLS: smtp.requireTls,
      ignoreTLS: smtp.ignoreTls,
      auth: smtp.auth ?? undefined,
      connectionTimeout: timeout,
      greetingTimeout: timeout,
      socketTimeout: timeout,
      dnsTimeout: timeout,
    };
    this.transporter = nodemailer.createTransport(options);
  }

  async send(msg: OutboundMessage): Promise<ProviderOutcome> {
    const transporter = whenSelected(this.transporter, this.name);
    const messageId = `<${msg.messageId}@${this.idDomain}>`;
    const attachment = msg.attachment ? await this.download(msg.attachment) : null;
    if (attachment && 'status' in attachment) return attachment;
    try {
      const info = await transporter.sendMail({
        from: this.from,
        to: msg.to,
        subject: msg.subject ?? '',
        text: msg.text ?? undefined,
        html: msg.html ?? undefined,
        messageId,
        headers: { 'X-Message-Ref': msg.messageId },
        attachments: attachment ? [attachment] : undefined,
      });
      this.logger.log(`email ${msg.messageId} accepted: ${info.response}`);
      return { status: 'sent', providerMessageId: info.messageId || messageId };
    } catch (err) {
      const verdict = classifySmtpFailure(err);
      this.logger.warn(`email ${msg.messageId} not sent: ${verdict.message}`);
      if (verdict instanceof Error) throw verdict;
      return verdict;
    }
  }

  /**
   * The attachment's bytes, downloaded by the guarded fetcher (target rules on the URL and every
   * redirect, pinned address, size and time caps). nodemailer never sees the URL: its own parser
   * and redirect handling are exactly what the SSRF rules must not depend on. A refused or failed
   * download is a final INVALID_ATTACHMENT (nothing is mailed, the message is refunded).
   */
  private async download(
    a: NonNullable<OutboundMessage['attachment']>,
  ): Promise<{ content: Buffer; filename?: string; contentType?: string } | ProviderOutcome> {
    const refused = (message: string): ProviderOutcome => ({ status: 'rejected', code: 'INVALID_ATTACHMENT', message });
    try {
      const res = await this.fetcher.fetch(a.url, {
        timeoutMs: this.config.providers.timeoutMs,
        maxBytes: this.config.outbound.attachmentMaxBytes,
      });
      if (res.status < 200 || res.status >= 300)
        return refused(`attachment.url could not be fetched (HTTP ${res.status})`);
      const filename = a.fileName ?? lastSegment(res.url);
      const contentType =
        a.mimeType ?? (typeof res.headers['content-type'] === 'string' ? res.headers['content-type'] : undefined);
      return { content: res.body, filename, contentType };
    } catch (err) {
      if (err instanceof TargetRefusedError) return refused(refusedTargetText('attachment.url'));
      if (err instanceof FetchFailedError) {
        if (err.kind === 'too_large')
          return refused(`attachment.url is larger than ${this.config.outbound.attachmentMaxBytes} bytes`);
        if (err.kind === 'timeout') return refused('attachment.url did not answer in time');
        return refused(
          `attachment.url could not be fetched (${err.kind === 'redirects' ? err.message : 'connection failed'})`,
        );
      }
      throw err;
    }
  }
}

/** The file name a URL suggests (its last path segment), as nodemailer derived it from a path. */
function lastSegment(url: string): string | undefined {
  const raw = new URL(url).pathname.split('/').pop() ?? '';
  try {
    return decodeURIComponent(raw) || undefined;
  } catch {
    return raw || undefined;
  }
}
