import { useClient } from '../api/context';
import { unwrap } from '../api/failure';
import type { Schemas } from '../api/public';
import { useAction, useApi } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Page, Section } from '../components/page';
import { Status, When, money } from '../components/status';
import { Link } from '../router';

interface Step {
  label: string;
  at: string | null;
  detail?: string;
}

/** The status timeline: creation, the schedule, then every status the message reached (its history). */
function timeline(m: Schemas['MessageDetail']): Step[] {
  const steps: Step[] = [{ label: 'created', at: m.createdAt }];
  if (m.scheduledAt) steps.push({ label: 'scheduled for', at: m.scheduledAt });
  for (const h of m.statusHistory) {
    if (h.status === 'scheduled') continue; // shown as "scheduled for"
    const detail = [
      h.source === 'provider' ? `receipt${h.providerStatus ? ` ${h.providerStatus}` : ''}` : null,
      h.status === 'sent' && m.providerMessageId ? `provider id ${m.providerMessageId}` : null,
      h.errorCode,
      h.status === 'failed' && h.source === 'api' ? m.errorMessage : null,
    ]
      .filter(Boolean)
      .join(' · ');
    steps.push({
      label: h.status === 'cancelled' ? 'cancelled (refunded)' : h.status,
      at: h.at,
      detail: detail || undefined,
    });
  }
  return steps;
}

export function MessageDetailPage({ id }: { id: string }) {
  const client = useClient();
  const msg = useApi(
    async () => (await unwrap(client.GET('/api/v2/messages/{id}', { params: { path: { id } } }))).data,
    id,
  );
  const m = msg.data;
  // A scheduled message no sender has taken yet can be cancelled; its payment goes back.
  const cancel = useAction(async () => {
    await unwrap(client.POST('/api/v2/messages/{id}/cancel', { params: { path: { id } } }));
    msg.reload();
  });
  return (
    <Page title="Message" actions={<Link to="/messages">All messages</Link>}>
      <ErrorBox error={msg.error} />
      {m && (
        <>
          <Section title="Details">
            <dl className="facts">
              <div>
                <dt>Id</dt>
                <dd className="mono small">{m.id}</dd>
              </div>
              <div>
                <dt>Status</dt>
                <dd>
                  <Status value={m.status} />
                </dd>
              </div>
              <div>
                <dt>To</dt>
                <dd className="mono">{m.to}</dd>
              </div>
              <div>
                <dt>Channel</dt>
                <dd>
                  {m.channel} ({m.messageType})
                </dd>
              </div>
              <div>
                <dt>Purpose</dt>
                <dd>{m.purpose}</dd>
              </div>
              <div>
                <dt>Sender</dt>
                <dd>{m.sender ?? '-'}</dd>
              </div>
              <div>
                <dt>Cost</dt>
                <dd>
                  {money(m.cost)} <span className="dd-note">paid from {m.paidFrom ?? '-'}</span>
                </dd>
              </div>
              {m.segments !== null && (
                <div>
                  <dt>SMS parts</dt>
                  <dd>
                    {m.segments}{' '}
                    <span className="dd-note">{m.encoding === 'ucs2' ? 'UCS-2' : 'GSM-7'}; each part is billed</span>
                  </dd>
                </div>
              )}
              {m.templateId && (
                <div>
                  <dt>Template</dt>
                  <dd className="mono small">{m.templateId}</dd>
                </div>
              )}
              {m.bulkJobId && (
                <div>
                  <dt>Bulk job</dt>
                  <dd>
                    <Link to={`/bulk/${encodeURIComponent(m.bulkJobId)}`} className="mono small">
                      {m.bulkJobId}
                    </Link>{' '}
                    <span className="dd-note">row {m.rowIndex}</span>
                  </dd>
                </div>
              )}
            </dl>
            {m.status === 'scheduled' && (
              <div className="row spaced">
                <button type="button" className="danger" onClick={() => void cancel.run()} disabled={cancel.busy}>
                  Cancel scheduled message
                </button>
              </div>
            )}
            <ErrorBox error={cancel.error} />
          </Section>
          <Section title="Status timeline">
            <ol className="timeline" aria-label="Status timeline">
              {timeline(m).map((s, i) => (
                <li key={i}>
                  <strong>{s.label}</strong> <When at={s.at} />
                  {s.detail && <div className="muted small">{s.detail}</div>}
                </li>
              ))}
            </ol>
          </Section>
        </>
      )}
    </Page>
  );
}
