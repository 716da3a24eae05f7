import { useState } from 'react';
import { useClient } from '../api/context';
import { unwrap } from '../api/failure';
import { useAction } from '../api/use-api';
import { ErrorBox } from '../components/error-box';
import { Section } from '../components/page';
import { saveBlob } from '../lib/download';
import type { SuppressionFilters } from './suppressions';

/** Import a CSV file into the suppression list (all or nothing), export the list (with the page's filters). */
export function SuppressionsCsv({ filters, onImported }: { filters: SuppressionFilters; onImported(): void }) {
  const client = useClient();
  const [file, setFile] = useState<File | null>(null);
  const upload = useAction(async (f: File) => {
    const result = await unwrap(
      client.POST('/api/v2/suppressions/import', {
        body: await f.text(),
        // The file as it is (the typed client would send JSON otherwise).
        bodySerializer: (csv) => csv,
        headers: { 'Content-Type': 'text/csv' },
      }),
    );
    onImported();
    return result.data;
  });
  // Fetched with the key (a plain link could not send it), then saved from a blob: URL.
  const download = useAction(async () => {
    const csv = await unwrap(
      client.GET('/api/v2/suppressions/export', { params: { query: filters }, parseAs: 'blob' }),
    );
    saveBlob(csv, 'suppressions.csv');
  });
  const done = upload.result;

  return (
    <Section title="Import and export">
      <p className="muted small">
        Import a CSV file with a header row: <code>recipient</code> (required), <code>channel</code> (default{' '}
        <code>all</code>), <code>scope</code> (default <code>marketing</code>). Every row is checked first: one bad row
        and nothing is imported. The export holds the entries the filters above select (erased recipients left out).
      </p>
      <form
        className="row"
        aria-label="Import a CSV file"
        onSubmit={(e) => {
          e.preventDefault();
          if (file) void upload.run(file);
        }}
      >
        <span className="pair">
          <label htmlFor="sup-file">CSV file</label>
          <input
            id="sup-file"
            type="file"
            accept=".csv,text/csv"
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          />
        </span>
        <button type="submit" className="primary" disabled={!file || upload.busy}>
          Import
        </button>
        <button type="button" onClick={() => void download.run()} disabled={download.busy}>
          Export (CSV)
        </button>
      </form>
      <ErrorBox error={upload.error} />
      <ErrorBox error={download.error} />
      {done && !upload.error && (
        <p className="notice" role="status">
          Imported {done.imported} new {done.imported === 1 ? 'entry' : 'entries'}; {done.alreadyPresent} already on the
          list ({done.rows} {done.rows === 1 ? 'row' : 'rows'} read).
        </p>
      )}
    </Section>
  );
}
