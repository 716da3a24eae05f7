import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Readable } from 'node:stream';
import { Repository } from 'typeorm';
import { isLiveAccount } from '../../accounts/account-mode';
import { AppConfig } from '../../config/app-config';
import { Clock } from '../../common/clock';
import { ApiError } from '../../common/errors';
import { randomPart } from '../../common/ids';
import { FetchedResponse, FetchFailedError, GuardedFetcher } from '../../common/net/guarded-fetcher';
import { refusedTargetText, TargetRefusedError } from '../../common/net/target-policy';
import { TemplateMediaEntity } from '../entities/template-media.entity';
import { MediaIngest } from './media-ingest';
import { MediaStorage } from './media-storage';
import { IngestedFile, MEDIA_MAX_BYTES } from './media-types';
import { previewUrlOf } from './preview-url';
import type { UploadedMedia } from './multer-ingest.storage';
import type { AccountId } from '../../common/account-id';

/** 26 random base32 characters (130 bits): the asset id is the only secret of the public preview link. */
const newAssetId = (): string => `hma_${randomPart(26)}`;

export interface MediaAssetView {
  headerAssetId: string;
  headerType: TemplateMediaEntity['headerType'];
  mimeType: string;
  size: number;
  previewUrl: string;
  livemode: boolean;
}

@Injectable()
export class TemplateMediaService {
  constructor(
    @InjectRepository(TemplateMediaEntity) private readonly media: Repository<TemplateMediaEntity>,
    private readonly storage: MediaStorage,
    private readonly ingest: MediaIngest,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly fetcher: GuardedFetcher,
  ) {
    this.quotaBytes = config.media.quotaBytes;
  }

  private readonly quotaBytes: number;

  /**
   * Moves a checked temp file into storage and records it for the account (null: default templates,
   * no quota). The quota is checked again after the insert, so concurrent uploads (any replica) can
   * never together pass it: an upload that finds the sum over the quota takes itself back.
   */
  async store(accountId: AccountId | null, file: IngestedFile): Promise<TemplateMediaEntity> {
    if (accountId !== null) await this.assertQuota(accountId, file.size);
    const id = newAssetId();
    const entity = this.media.create({
      id,
      accountId,
      headerType: file.headerType,
      mimeType: file.mimeType,
      size: file.size,
      storageKey: id,
      createdAt: this.clock.now(),
    });
    await this.storage.put(entity.storageKey, file.tmpPath);
    try {
      await this.media.insert(entity);
    } catch (err) {
      await this.storage.delete(entity.storageKey);
      throw err;
    }
    if (accountId !== null) {
      try {
        await this.assertQuota(accountId, 0);
      } catch (err) {
        await this.remove(entity);
        throw err;
      }
    }
    return entity;
  }

  private async assertQuota(accountId: AccountId, adding: number): Promise<void> {
    const used = Number((await this.media.sum('size', { accountId })) ?? 0);
    if (used + adding > this.quotaBytes) {
      throw new ApiError(
        'MEDIA_QUOTA_EXCEEDED',
        `Stored media would use ${used + adding} of this account's ${this.quotaBytes} bytes; templates' unused media is removed after a while, or ask the operator`,
      );
    }
  }

  /** Compensation when a template creation fails after its media was stored. */
  async remove(asset: TemplateMediaEntity): Promise<void> {
    await this.media.delete({ id: asset.id });
    await this.storage.delete(asset.storageKey);
  }

  async findOwned(accountId: AccountId | null, assetId: string): Promise<TemplateMediaEntity | null> {
    const asset = await this.media.findOne({ where: { id: assetId } });
    return asset && asset.accountId === accountId ? asset : null;
  }

  /** The public preview link's read: the asset id (130 random bits) is the link's only secret, whoever's asset it is. */
  async openAny(assetId: string): Promise<{ stream: Readable; mimeType: string; size: number } | null> {
    if (!/^hma_[0-9a-z]{26}$/.test(assetId)) return null;
    const asset = await this.media.findOne({ where: { id: assetId } });
    const stream = asset ? await this.storage.open(asset.storageKey) : null;
    return asset && stream ? { stream, mimeType: asset.mimeType, size: asset.size } : null;
  }

  /** A stored asset's bytes (header media are at most MEDIA_MAX_BYTES), e.g. for a provider upload. */
  async readAll(asset: TemplateMediaEntity): Promise<Buffer> {
    const stream = await this.storage.open(asset.storageKey);
    if (!stream) throw new Error(`header media ${asset.id} is missing from storage`);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
    return Buffer.concat(chunks);
  }

  discard(file: IngestedFile | null | undefined): Promise<void> {
    return MediaIngest.discard(file);
  }

  /** POST /api/v2/templates/media: the file was checked while it streamed in; store it. */
  async upload(accountId: AccountId | null, upload: UploadedMedia | null): Promise<MediaAssetView> {
    if (!upload) throw ApiError.validation('file is required (multipart field "file")');
    try {
      return this.view(await this.store(accountId, upload.ingested));
    } finally {
      await this.discard(upload.ingested);
    }
  }

  view(asset: TemplateMediaEntity): MediaAssetView {
    return {
      headerAssetId: asset.id,
      headerType: asset.headerType,
      mimeType: asset.mimeType,
      size: asset.size,
      previewUrl: previewUrlOf(this.config, asset.id),
      // No account: the operator's upload for a default template.
      livemode: asset.accountId === null || isLiveAccount(asset.accountId),
    };
  }

  /**
   * Downloads `headerMediaUrl` through the guarded fetcher: target rules on the URL and on every
   * redirect, one DNS resolution per hop and the connection pinned to the checked address.
   */
  async fetch(url: string): Promise<IngestedFile> {
    const field = 'headerMediaUrl';
    const timeoutMs = this.config.media.fetchTimeoutMs;
    let res: FetchedResponse;
    try {
      res = await this.fetcher.open(url, { timeoutMs, maxBytes: MEDIA_MAX_BYTES });
    } catch (err) {
      throw fetchError(err, field, timeoutMs);
    }
    if (res.status < 200 || res.status >= 300) {
      res.body.destroy();
      throw ApiError.validation(`${field} could not be fetched (HTTP ${res.status})`);
    }
    try {
      // A server's Content-Type is often generic or loose (image/jpg): only the bytes decide here.
      return await this.ingest.ingest(res.body, null, field);
    } catch (err) {
      throw fetchError(err, field, timeoutMs);
    } finally {
      res.body.destroy();
    }
  }
}

function fetchError(err: unknown, field: string, timeoutMs: number): unknown {
  if (err instanceof ApiError) return err;
  if (err instanceof TargetRefusedError) return ApiError.validation(refusedTargetText(field));
  if (err instanceof FetchFailedError) {
    if (err.kind === 'too_large') return new ApiError('PAYLOAD_TOO_LARGE', `${field}: file is larger than 100 MB`);
    if (err.kind === 'timeout') return ApiError.validation(`${field} did not answer within ${timeoutMs} ms`);
    if (err.kind === 'redirects') return ApiError.validation(`${field} redirected too many times`);
    return ApiError.validation(`${field} could not be fetched`);
  }
  return err;
}
