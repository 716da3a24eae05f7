export type MediaKind = 'image' | 'video' | 'document' | 'audio';

/** Media kind from the MIME type when known, else from the URL's extension (image by default). */
export function mediaKind(url: string, mimeType: string | null): MediaKind {
  const mime = (mimeType ?? '').toLowerCase();
  if (mime.startsWith('image/')) return 'image';
  if (mime.startsWith('video/')) return 'video';
  if (mime.startsWith('audio/')) return 'audio';
  if (mime) return 'document';
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // keep the raw string
  }
  const ext = path.toLowerCase().split('.').pop() ?? '';
  if (['mp4', '3gp', 'mov'].includes(ext)) return 'video';
  if (['pdf', 'doc', 'docx', 'xls', 'xlsx', 'ppt', 'pptx', 'txt', 'csv'].includes(ext)) return 'document';
  if (['mp3', 'ogg', 'aac', 'amr', 'm4a', 'opus'].includes(ext)) return 'audio';
  return 'image';
}
