import { ChangeEvent, FormEvent, useState } from 'react';
import { useClient } from '../api/context';
import { unwrap } from '../api/failure';
import type { Schemas } from '../api/public';
import { useAction } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Page, Section, TableBox } from '../components/page';
import { money } from '../components/status';
import { CSV_COLUMNS, parseBulkCsv, SAMPLE_CSV, type ParsedCsv } from '../lib/bulk-csv';
import { randomKey } from '../lib/random-key';
import { Link, navigate } from '../router';

const PREVIEW_ROWS = 10;

function summary(m: ParsedCsv['messages'][number]): string {
  if (m.messageType === 'template') return `template ${m.template?.id ?? ''}`;
  return m.content?.text ?? m.content?.subject ?? '';
}

function DryRun({ result }: { result: Schemas['BulkDryRunResource'] }) {
  const c = result.estimatedCost;
  return (
    <div className={result.invalid === 0 ? 'notice' : 'error'} role="status" data-testid="dry-run">
      <p>
        <strong>Dry run:</strong> {result.valid} of {result.total} rows valid, {result.invalid} invalid. Channels:{' '}
        {Object.entries(result.channels)
          .map(([k, n]) => `${k} ${n}`)
          .join(', ') || '-'}
        . Estimated cost: {c.free} free, {c.quota} from the plan, {money(c.wallet, c.currency)} from the wallet
        {c.unpaid > 0 && <strong>; {c.unpaid} the balance cannot pay (the job would pause or be rejected)</strong>};
        about {Math.ceil(result.estimatedDurationSeconds)} s to send.
      </p>
      {result.errors.length > 0 && (
        <ul>
          {result.errors.map((e) => (
            <li key={`${e.index}-${e.code}`}>
              Row {e.index + 1}: <strong>{e.code}</strong> {e.error}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** New bulk job from a CSV file: parse in the browser, dry run on the server, then create. */
export function BulkNewPage() {
  const client = useClient();
  const [name, setName] = useState('');
  const [rate, setRate] = useState(5);
  const [parsed, setParsed] = useState<ParsedCsv | null>(null);
  const [fileName, setFileName] = useState('');
  // One idempotency key per file: submitting twice returns the same job instead of a second one.
  const [idempotencyKey, setIdempotencyKey] = useState('');
  // The server's dry run: the same validator and prices as a real job, nothing stored.
  const dryRun = useAction(
    async (p: ParsedCsv, perSecond: number) =>
      (
        await unwrap(
          client.POST('/api/v2/messages/bulk/validate', {
            body: { messagesPerSecond: perSecond, messages: p.messages },
          }),
        )
      ).data,
  );
  const create = useAction(async (p: ParsedCsv) =>
    unwrap(
      client.POST('/api/v2/messages/bulk', {
        params: { header: { 'Idempotency-Key': idempotencyKey } },
        body: { name: name || undefined, messagesPerSecond: rate, messages: p.messages },
      }),
    ),
  );

  const onFile = async (e: ChangeEvent<HTMLInputElement>) => {
    const file = e.currentTarget.files?.[0];
    dryRun.clear();
    if (!file) return setParsed(null);
    setFileName(file.name);
    if (!name) setName(file.name.replace(/\.csv$/i, ''));
    const p = parseBulkCsv(await file.text());
    setParsed(p);
    setIdempotencyKey(randomKey());
    if (p.problems.length === 0) await dryRun.run(p, rate);
  };

  // The estimate (duration, payment windows) depends on the pace: check again when it changes.
  const changeRate = (r: number) => {
    setRate(r);
    if (parsed && parsed.problems.length === 0 && Number.isInteger(r) && r >= 1 && r <= 10) void dryRun.run(parsed, r);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!parsed) return;
    const job = await create.run(parsed);
    if (job) navigate(`/bulk/${encodeURIComponent(job.id)}`);
  };

  const checked = dryRun.result && !dryRun.busy;
  const canCreate = !!parsed && parsed.problems.length === 0 && checked && dryRun.result?.invalid === 0 && !create.busy;
  return (
    <Page title="New bulk job" actions={<Link to="/bulk">All jobs</Link>}>
      <form className="card stack" onSubmit={(e) => void submit(e)} aria-label="New bulk job">
        <div className="form-grid">
          <div>
            <label htmlFor="bulk-file">CSV file</label>
            <input
              id="bulk-file"
              type="file"
              accept=".csv,text/csv"
              onChange={(e) => void onFile(e)}
              aria-describedby="csv-help"
            />
          </div>
          <div>
            <label htmlFor="bulk-name">Job name</label>
            <input id="bulk-name" value={name} maxLength={200} onChange={(e) => setName(e.target.value)} />
          </div>
          <div>
            <label htmlFor="bulk-rate">Messages per second</label>
            <input
              id="bulk-rate"
              type="number"
              min={1}
              max={10}
              step={1}
              value={rate}
              onChange={(e) => changeRate(Number(e.target.value))}
            />
          </div>
        </div>
        <p id="csv-help" className="muted small">
          Header row with the columns {CSV_COLUMNS.join(', ')} (to and channel required; several template variables
          separated by |). Example:
        </p>
        <pre className="sample">{SAMPLE_CSV}</pre>
        {parsed && parsed.problems.length > 0 && (
          <div className="error" role="alert">
            <strong>The file cannot be sent as it is:</strong>
            <ul>
              {parsed.problems.slice(0, 20).map((p, i) => (
                <li key={i}>
                  {p.row > 0 ? `Row ${p.row}: ` : ''}
                  {p.message}
                </li>
              ))}
            </ul>
          </div>
        )}
        {parsed && parsed.unknownColumns.length > 0 && (
          <p className="muted">Ignored columns: {parsed.unknownColumns.join(', ')}</p>
        )}
        <ErrorBox error={dryRun.error} />
        {dryRun.busy && <p className="muted">Checking every row on the server (dry run, nothing is sent)...</p>}
        {checked && dryRun.result && <DryRun result={dryRun.result} />}
        <ErrorBox error={create.error} />
        <div className="row">
          <button
            type="button"
            disabled={!parsed || parsed.problems.length > 0 || dryRun.busy}
            onClick={() => parsed && void dryRun.run(parsed, rate)}
          >
            Check again (dry run)
          </button>
          <button type="submit" className="primary" disabled={!canCreate}>
            {create.busy ? 'Creating...' : `Create job${parsed ? ` (${parsed.messages.length} messages)` : ''}`}
          </button>
        </div>
      </form>
      {parsed && parsed.messages.length > 0 && (
        <Section title={`Preview of ${fileName}`}>
          <p className="muted small">
            {parsed.messages.length} rows
            {parsed.messages.length > PREVIEW_ROWS ? `; the first ${PREVIEW_ROWS} shown` : ''}.
          </p>
          <TableBox label="CSV preview">
            <thead>
              <tr>
                <th scope="col">Row</th>
                <th scope="col">To</th>
                <th scope="col">Channel</th>
                <th scope="col">Type</th>
                <th scope="col">Text or template</th>
              </tr>
            </thead>
            <tbody>
              {parsed.messages.slice(0, PREVIEW_ROWS).map((m, i) => (
                <tr key={i}>
                  <td>{i + 1}</td>
                  <td className="mono">{m.to}</td>
                  <td>{m.channel}</td>
                  <td>{m.messageType}</td>
                  <td className="wrap">{summary(m)}</td>
                </tr>
              ))}
            </tbody>
          </TableBox>
        </Section>
      )}
    </Page>
  );
}
