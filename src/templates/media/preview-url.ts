import type { AppConfig } from '../../config/app-config';

/** Route of the public header-media preview (MediaPreviewController). */
export const PREVIEW_ROUTE = 'media/template-headers';

/** headerPreviewUrl / previewUrl of an asset: the link the provider fetches the header file from. */
export function previewUrlOf(config: AppConfig, assetId: string): string {
  return `${config.server.publicBaseUrl}/${PREVIEW_ROUTE}/${assetId}`;
}
