import { Controller, Get, Param, Res, StreamableFile } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Response } from 'express';
import { Public, ThrottlePerIp } from '../../auth/decorators';
import { ApiError } from '../../common/errors';
import { PREVIEW_ROUTE } from './preview-url';
import { TemplateMediaService } from './template-media.service';

/** headerPreviewUrl: public (the provider fetches it), guarded by the 128-bit random asset id. */
@ApiExcludeController()
@ThrottlePerIp()
@Controller(PREVIEW_ROUTE)
export class MediaPreviewController {
  constructor(private readonly media: TemplateMediaService) {}

  @Get(':assetId')
  @Public()
  async preview(@Param('assetId') assetId: string, @Res({ passthrough: true }) res: Response): Promise<StreamableFile> {
    const file = await this.media.openAny(assetId);
    if (!file) throw new ApiError('NOT_FOUND', 'Media not found');
    res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    // Meant to be fetched from anywhere that holds the link (helmet's default would be same-origin).
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    return new StreamableFile(file.stream, { type: file.mimeType, length: file.size, disposition: 'inline' });
  }
}
