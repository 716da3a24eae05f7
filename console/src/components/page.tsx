import type { ReactNode } from 'react';

/** A page: its heading (focused after navigation, so screen readers announce the new page) and body. */
export function Page({ title, actions, children }: { title: string; actions?: ReactNode; children: ReactNode }) {
  return (
    <>
      <div className="page-head">
        <h1 tabIndex={-1}>{title}</h1>
        {actions && <div className="actions">{actions}</div>}
      </div>
      {children}
    </>
  );
}

export function Section({ title, children, id }: { title: string; children: ReactNode; id?: string }) {
  const headingId = `${id ?? title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-heading`;
  return (
    <section className="card" aria-labelledby={headingId} id={id}>
      <h2 id={headingId}>{title}</h2>
      {children}
    </section>
  );
}

/** Wide tables scroll sideways inside their own box on a narrow screen instead of widening the page. */
export function TableBox({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-box" role="region" aria-label={label} tabIndex={0}>
      <table>{children}</table>
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <p className="muted empty">{children}</p>;
}
