import { useId } from 'react';
import { TableBox } from './page';

/** One labelled series of the chart; `color` is any CSS colour (an SVG fill attribute, allowed by the CSP). */
export interface ChartSeries {
  label: string;
  color: string;
}

/** One day: `values[i]` belongs to `series[i]`. */
export interface ChartDay {
  date: string;
  values: number[];
}

// Drawing units: the SVG scales to its box (width 100%), so these are proportions, not pixels. A
// 400-unit width keeps 12-unit text near 10 px on a 390 px phone.
const W = 400;
const H = 180;
const LEFT = 30;
// Room for half of the last date label, which is centred under the last bar.
const RIGHT = 16;
const BOTTOM = 20;
const TOP = 8;

/** The smallest of 1, 2, 5 x 10^n at or above `n` (axis ends on a round number). */
function roundUp(n: number): number {
  if (n <= 1) return 1;
  const p = 10 ** Math.floor(Math.log10(n));
  return [1, 2, 5, 10].map((m) => m * p).find((v) => v >= n) ?? 10 * p;
}

/**
 * Grouped bars per day, one colour per series: pure SVG, no library, no request. The SVG is an image
 * with a title and description; the same numbers are in a table under it for screen readers and for
 * reading exact values.
 */
export function DailyChart({
  title,
  description,
  series,
  days,
}: {
  title: string;
  description: string;
  series: ChartSeries[];
  days: ChartDay[];
}) {
  const id = useId();
  const max = roundUp(Math.max(0, ...days.flatMap((d) => d.values)));
  const plotW = W - LEFT - RIGHT;
  const plotH = H - TOP - BOTTOM;
  const slot = plotW / Math.max(1, days.length);
  const bar = (slot * 0.8) / Math.max(1, series.length);
  const y = (v: number) => TOP + plotH - (v / max) * plotH;
  // Around seven date labels whatever the range, counted back from today's so they never overlap.
  const every = Math.max(1, Math.ceil(days.length / 7));
  return (
    <figure className="chart">
      <svg viewBox={`0 0 ${W} ${H}`} width="100%" role="img" aria-labelledby={`${id}-t ${id}-d`} className="chart-svg">
        <title id={`${id}-t`}>{title}</title>
        <desc id={`${id}-d`}>{description}</desc>
        {[0, max / 2, max].map((v) => (
          <g key={v}>
            <line x1={LEFT} x2={W - RIGHT} y1={y(v)} y2={y(v)} className="chart-grid" />
            <text x={LEFT - 4} y={y(v) + 4} textAnchor="end" className="chart-label">
              {Number.isInteger(v) ? v : ''}
            </text>
          </g>
        ))}
        {days.map((d, i) => (
          <g key={d.date}>
            {series.map((s, j) => {
              const v = d.values[j] ?? 0;
              return (
                <rect
                  key={s.label}
                  x={LEFT + i * slot + slot * 0.1 + j * bar}
                  y={y(v)}
                  width={bar}
                  height={y(0) - y(v)}
                  fill={s.color}
                  data-series={s.label}
                  data-date={d.date}
                  data-value={v}
                >
                  <title>{`${d.date}: ${v} ${s.label}`}</title>
                </rect>
              );
            })}
            {(days.length - 1 - i) % every === 0 && (
              <text x={LEFT + (i + 0.5) * slot} y={H - 5} textAnchor="middle" className="chart-label">
                {d.date.slice(5)}
              </text>
            )}
          </g>
        ))}
      </svg>
      <figcaption className="chart-legend">
        {series.map((s) => (
          <span key={s.label}>
            <svg viewBox="0 0 10 10" width="10" height="10" aria-hidden="true">
              <rect width="10" height="10" fill={s.color} />
            </svg>{' '}
            {s.label}
          </span>
        ))}
      </figcaption>
      <details className="chart-table">
        <summary>Show as a table</summary>
        <TableBox label={title}>
          <thead>
            <tr>
              <th scope="col">Date</th>
              {series.map((s) => (
                <th scope="col" key={s.label}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.date}>
                <th scope="row">{d.date}</th>
                {series.map((s, j) => (
                  <td key={s.label}>{d.values[j] ?? 0}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </TableBox>
      </details>
    </figure>
  );
}
