import parsePrometheusTextFormat from 'parse-prometheus-text-format';

type Family = ReturnType<typeof parsePrometheusTextFormat>[number];
interface Series {
  labels: Record<string, string>;
  count: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g;

/**
 * A scrape read through parse-prometheus-text-format, which checks the text format line by line and
 * gives every family's type, counters and gauges. That parser folds a histogram's labelled series
 * into one unlabelled entry (its issue #13, fix unmerged), so each histogram series' observation
 * count is read from its `_count` samples here.
 */
export class Scrape {
  readonly families: Map<string, Family>;
  private readonly histograms = new Map<string, Series[]>();

  constructor(text: string) {
    this.families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]));
    for (const line of text.split('\n')) {
      const m = SAMPLE.exec(line);
      const family = m?.[1].replace(/_count$/, '');
      if (!m || !m[1].endsWith('_count') || this.families.get(family!)?.type !== 'HISTOGRAM') continue;
      const labels: Record<string, string> = {};
      for (const [, k, v] of (m[2] ?? '').matchAll(LABEL))
        labels[k] = v.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      this.histograms.set(family!, [...(this.histograms.get(family!) ?? []), { labels, count: Number(m[3]) }]);
    }
  }

  family(name: string): Family {
    const f = this.families.get(name);
    if (!f) throw new Error(`metric ${name} is not in the scrape`);
    return f;
  }

  /** Does the scrape have this series name (a histogram's _bucket/_sum/_count included)? */
  hasSeries(name: string): boolean {
    if (this.families.has(name)) return true;
    const m = /^(.*)_(bucket|sum|count)$/.exec(name);
    return !!m && ['HISTOGRAM', 'SUMMARY'].includes(this.families.get(m[1])?.type ?? '');
  }

  /** Sum of a counter's or gauge's samples whose labels include `labels` (0 when none). */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.family(name)
      .metrics.filter((s) => includes(s.labels ?? {}, labels))
      .reduce((n, s) => n + Number(s.value), 0);
  }

  /** Sum of a histogram's observation counts over the series whose labels include `labels`. */
  count(name: string, labels: Record<string, string> = {}): number {
    return this.series(name)
      .filter((s) => includes(s.labels, labels))
      .reduce((n, s) => n + s.count, 0);
  }

  /** Label sets of a metric's series. */
  labelSets(name: string): Record<string, string>[] {
    if (this.family(name).type === 'HISTOGRAM') return this.series(name).map((s) => s.labels);
    return this.family(name).metrics.map((s) => s.labels ?? {});
  }

  private series(name: string): Series[] {
    if (this.family(name).type !== 'HISTOGRAM') throw new Error(`${name} is not a histogram`);
    return this.histograms.get(name) ?? [];
  }
}

function includes(labels: Record<string, string>, wanted: Record<string, string>): boolean {
  return Object.entries(wanted).every(([k, v]) => labels[k] === v);
}
