import { FormEvent, useState } from 'react';
import { useClient } from '../api/context';
import { unwrap } from '../api/failure';
import type { Schemas } from '../api/public';
import { useAction, useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Section } from '../components/page';
import { Status } from '../components/status';
import { sameOriginPath } from '../lib/same-origin';

type Body = Schemas['CreateTemplateDto'];
type Category = Body['category'];
type HeaderType = NonNullable<Body['headerType']>;
const SUB_TYPES: Body['subType'][] = ['utility', 'otp', 'marketing', 'free'];

/** `{{1}}`, `{{2}}`... of a chat-app body, in order. */
function placeholders(body: string): number[] {
  return [...new Set([...body.matchAll(/\{\{(\d+)\}\}/g)].map((m) => Number(m[1])))].sort((a, b) => a - b);
}

/** Create a template of any category; a chat-app header file is uploaded first (POST /templates/media). */
export function CreateTemplateForm({ onCreated }: { onCreated(): void }) {
  const client = useClient();
  const [category, setCategory] = useState<Category>('sms');
  const [headerType, setHeaderType] = useState<HeaderType | ''>('');
  const [file, setFile] = useState<File | null>(null);
  const senders = useApi(
    async () => (await unwrap(client.GET('/api/v2/chatapp/official-senders'))).data.officialSenders,
    'official-senders',
  );
  const upload = useAction(
    async (f: File) =>
      (
        await unwrap(
          client.POST('/api/v2/templates/media', {
            body: { file: f },
            bodySerializer: (b) => {
              const form = new FormData();
              if (b.file) form.append('file', b.file, f.name);
              return form;
            },
          }),
        )
      ).data,
  );
  const create = useAction(
    async (body: Body) => (await unwrap(client.POST('/api/v2/templates', { body }))).data.template,
  );

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    const text = (k: string) => String(f.get(k) ?? '').trim() || undefined;
    const body: Body = {
      name: text('name') ?? '',
      category,
      subType: (text('subType') ?? 'utility') as Body['subType'],
    };
    if (category === 'chatapp') {
      body.language = text('language');
      body.body = text('body');
      const examples = (text('examples') ?? '').split('|').map((v) => v.trim());
      body.bodyParameters = placeholders(body.body ?? '').map((index, i) => ({
        index,
        label: examples[i] || `value${index}`,
      }));
      body.footer = text('footer');
      body.officialSenderId = text('officialSenderId');
      if (headerType) body.headerType = headerType;
      if (headerType === 'text') body.headerValue = text('headerValue');
      if (headerType && headerType !== 'text') {
        if (!file) return;
        // Uploaded on each submit: an asset no template uses is removed by the server's purger.
        const asset = await upload.run(file);
        if (!asset) return;
        body.headerAssetId = asset.headerAssetId;
      }
    } else {
      body.content = text('content');
      if (category === 'email') body.emailSubject = text('emailSubject');
    }
    if (await create.run(body)) onCreated();
  };

  const preview = upload.result?.headerType === 'image' ? sameOriginPath(upload.result.previewUrl) : null;
  return (
    <Section title="Create a template">
      <form className="stack" onSubmit={(e) => void submit(e)} aria-label="Create a template">
        <div className="form-grid">
          <div>
            <label htmlFor="tc-name">Name (lowercase letters and _)</label>
            <input id="tc-name" name="name" required pattern="[a-z_]+" maxLength={200} />
          </div>
          <div>
            <label htmlFor="tc-category">Category</label>
            <select id="tc-category" value={category} onChange={(e) => setCategory(e.target.value as Category)}>
              <option value="sms">sms</option>
              <option value="message">message</option>
              <option value="email">email</option>
              <option value="chatapp">chatapp (official)</option>
            </select>
          </div>
          <div>
            <label htmlFor="tc-subtype">Sub-type</label>
            <select id="tc-subtype" name="subType" defaultValue="utility">
              {SUB_TYPES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </div>
          {category === 'chatapp' && (
            <div>
              <label htmlFor="tc-language">Language</label>
              <input id="tc-language" name="language" defaultValue="en" maxLength={10} />
            </div>
          )}
          {category === 'email' && (
            <div>
              <label htmlFor="tc-subject">Email subject</label>
              <input id="tc-subject" name="emailSubject" required maxLength={300} />
            </div>
          )}
        </div>
        {category !== 'chatapp' ? (
          <>
            <label htmlFor="tc-content">{category === 'email' ? 'Email body (HTML or text)' : 'Text'}</label>
            <textarea id="tc-content" name="content" required />
          </>
        ) : (
          <>
            <label htmlFor="tc-body">
              Body (placeholders {'{{1}}'}, {'{{2}}'}...)
            </label>
            <textarea id="tc-body" name="body" required />
            <div className="form-grid">
              <div>
                <label htmlFor="tc-examples">Example values, in order, separated by |</label>
                <input id="tc-examples" name="examples" />
              </div>
              <div>
                <label htmlFor="tc-footer">Footer</label>
                <input id="tc-footer" name="footer" maxLength={60} />
              </div>
              <div>
                <label htmlFor="tc-sender">Official sender</label>
                <select id="tc-sender" name="officialSenderId">
                  {(senders.data ?? []).map((s) => (
                    <option key={s.id} value={s.id}>
                      {s.label ?? s.displayName}
                    </option>
                  ))}
                </select>
              </div>
              <div>
                <label htmlFor="tc-header">Header</label>
                <select
                  id="tc-header"
                  value={headerType}
                  onChange={(e) => setHeaderType(e.target.value as HeaderType | '')}
                >
                  <option value="">None</option>
                  <option value="text">text</option>
                  <option value="image">image (JPEG/PNG)</option>
                  <option value="video">video (MP4)</option>
                  <option value="document">document (PDF)</option>
                </select>
              </div>
              {headerType === 'text' && (
                <div>
                  <label htmlFor="tc-header-text">Header text</label>
                  <input id="tc-header-text" name="headerValue" required maxLength={60} />
                </div>
              )}
              {headerType && headerType !== 'text' && (
                <div>
                  <label htmlFor="tc-header-file">Header file</label>
                  <input
                    id="tc-header-file"
                    type="file"
                    required
                    accept={
                      { image: 'image/jpeg,image/png', video: 'video/mp4', document: 'application/pdf' }[headerType]
                    }
                    onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
                  />
                </div>
              )}
            </div>
            <ErrorBox error={senders.error} />
            <ErrorBox error={upload.error} />
            {upload.result && (
              <p className="muted small" data-testid="header-asset">
                Header uploaded: <code>{upload.result.headerAssetId}</code> ({upload.result.mimeType},{' '}
                {upload.result.size} bytes)
                {preview && <img src={preview} alt="Uploaded header" className="thumb" />}
              </p>
            )}
          </>
        )}
        <ErrorBox error={create.error} />
        {create.result && (
          <p className="notice" role="status">
            Created <strong>{create.result.name}</strong> (<code>{create.result.id}</code>):{' '}
            <Status value={create.result.status} />
          </p>
        )}
        <div>
          <button type="submit" className="primary" disabled={create.busy || upload.busy}>
            {upload.busy ? 'Uploading header...' : create.busy ? 'Creating...' : 'Create template'}
          </button>
        </div>
      </form>
    </Section>
  );
}
