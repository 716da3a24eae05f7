import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo } from 'node:net';
import { mediaDir } from '../support/templates-helpers';

export type Mode = 'ok' | 'error500' | 'slow' | 'reset' | 'refuse' | 'duplicate';

/**
 * A local fake of the Cloud API template endpoints (POST /{v}/{waba}/message_templates, template
 * lookups and status polls) and of message sends (POST /{v}/{phone-number-id}/messages).
 */
export class CloudFake {
  server: Server;
  url = '';
  mode: Mode = 'ok';
  /** Review status the fake reports for GET /{v}/{template-id} (status poll). */
  statuses: Record<string, { status: string; rejected_reason?: string }> = {};
  requests: { method: string; path: string; auth: string | undefined; body: Record<string, unknown> }[] = [];
  /** Resumable uploads: sessions opened (app, length, type) and the bytes each received, with their headers. */
  uploads: {
    app: string;
    openAuth: string | undefined;
    fileLength: number;
    fileType: string;
    session: string;
    bytes: Buffer | null;
    auth: string | undefined;
    fileOffset: string | undefined;
    handle: string | null;
  }[] = [];
  /** Makes the next upload of bytes fail with this HTTP status. */
  failUploadWith: number | null = null;
  /** Templates the provider holds (manual-link lookups): id -> business account, name, language, status, body. */
  known: Record<string, { waba: string; name: string; language: string; status: string; body: string }> = {};
  private next = 9000;

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      void this.readBytes(req).then((bytes) => {
        if (this.upload(req, res, bytes)) return;
        const raw = bytes.toString('utf8');
        this.requests.push({
          method: req.method ?? '',
          path: req.url ?? '',
          auth: req.headers.authorization,
          body: raw ? JSON.parse(raw) : {},
        });
        const json = (status: number, body: unknown) =>
          res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
        if (req.method === 'GET') {
          if (this.mode === 'error500') return json(500, { error: { message: 'internal', code: 2 } });
          const [path, query = ''] = (req.url ?? '').split('?');
          const parts = path.split('/');
          const params = new URLSearchParams(query);
          if (parts.at(-1) === 'message_templates') {
            const waba = parts.at(-2);
            const data = Object.entries(this.known)
              .filter(([, k]) => k.waba === waba && k.name === params.get('name'))
              .map(([id]) => ({ id }));
            return json(200, { data });
          }
          const id = parts.at(-1) ?? '';
          const k = this.known[id];
          if (k)
            return json(200, {
              id,
              name: k.name,
              language: k.language,
              status: k.status,
              components: [{ type: 'BODY', text: k.body }],
            });
          if (params.get('fields')?.includes('name'))
            return json(400, {
              error: { message: `Unsupported get request. Object with ID '${id}' does not exist`, code: 100 },
            });
          return json(200, { id, ...(this.statuses[id] ?? { status: 'PENDING' }) });
        }
        if (req.method === 'POST' && (req.url ?? '').endsWith('/messages')) {
          return json(200, { messaging_product: 'whatsapp', messages: [{ id: `wamid.${++this.next}` }] });
        }
        switch (this.mode) {
          case 'ok':
            return json(200, { id: String(++this.next), status: 'PENDING', category: 'UTILITY' });
          case 'error500':
            return json(500, { error: { message: 'internal', code: 2 } });
          case 'slow':
            return void setTimeout(() => json(200, { id: '1', status: 'PENDING' }), 1500);
          case 'reset':
            return void req.socket.destroy();
          case 'refuse':
            return json(400, {
              error: {
                message: 'Invalid parameter',
                code: 100,
                error_subcode: 2388040,
                error_user_msg: 'Body has too many variables',
              },
            });
          case 'duplicate':
            return json(400, { error: { message: 'Invalid parameter', code: 100, error_subcode: 2388024 } });
        }
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }

  /**
   * The two calls of a resumable upload: POST /{v}/{app-id}/uploads?file_length=&file_type= -> { id },
   * then POST /{v}/upload:{session} with the bytes (Authorization: OAuth <token>, file_offset: 0) -> { h }.
   */
  private upload(req: IncomingMessage, res: ServerResponse, bytes: Buffer): boolean {
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    const url = new URL(req.url ?? '/', 'http://fake');
    const parts = url.pathname.split('/');
    if (req.method === 'POST' && parts.at(-1) === 'uploads') {
      const session = `upload:${Buffer.from(`session-${this.uploads.length + 1}`).toString('base64')}?sig=ARZfake${this.uploads.length + 1}`;
      this.uploads.push({
        app: parts.at(-2) ?? '',
        openAuth: req.headers.authorization,
        fileLength: Number(url.searchParams.get('file_length')),
        fileType: url.searchParams.get('file_type') ?? '',
        session,
        bytes: null,
        auth: req.headers.authorization,
        fileOffset: undefined,
        handle: null,
      });
      json(200, { id: session });
      return true;
    }
    const target = decodeURIComponent(`${parts.at(-1)}${url.search}`);
    const open = this.uploads.find((u) => u.session === target);
    if (req.method !== 'POST' || !target.startsWith('upload:')) return false;
    if (!open) {
      json(400, { error: { message: 'unknown upload session', code: 100 } });
      return true;
    }
    open.bytes = bytes;
    open.auth = req.headers.authorization;
    open.fileOffset = req.headers.file_offset as string | undefined;
    if (this.failUploadWith) {
      json(this.failUploadWith, { error: { message: 'upload failed', code: 1 } });
      return true;
    }
    open.handle = `4::${Buffer.from(open.session).toString('base64')}`;
    json(200, { h: open.handle });
    return true;
  }

  private readBytes(req: IncomingMessage): Promise<Buffer> {
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => resolve(Buffer.concat(chunks)));
    });
  }
}

export const cloudEnv = (baseUrl: string) => ({
  MEDIA_DIR: mediaDir(),
  PROVIDER_CHATAPP: 'cloud_api',
  CHATAPP_CLOUD_BASE_URL: baseUrl,
  CHATAPP_CLOUD_TOKEN: 'cloud-token-123',
  CHATAPP_CLOUD_WABA_ID: 'waba_main',
  CHATAPP_CLOUD_APP_ID: 'app_main',
  CHATAPP_CLOUD_PHONE_NUMBER_ID: 'pn_main',
  CHATAPP_CLOUD_WEBHOOK_SECRET: 'hook-secret-123',
  // Under the fake's 'slow' answer (1.5 s) with room for a busy box: at 400 ms a starved app timed out on quick answers.
  PROVIDER_TIMEOUT_MS: '1000',
});
