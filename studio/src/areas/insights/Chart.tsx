// A panel's answer drawn as dependency-free SVG: one number for a single aggregate, bars for groups, a
// line for date buckets; always with the values as a table beside it (the chart's text alternative).
import type { Panel } from './api.ts';

export interface ChartPoint {
  label: string;
  value: number | null;
  /** The value as the API answered it (text for exact decimals, dates). */
  shown: string;
}

function labelOf(value: unknown, isBucket: boolean): string {
  if (value === null || value === undefined) return '(none)';
  if (isBucket && typeof value === 'string' && !Number.isNaN(Date.parse(value))) return value.slice(0, 10);
  return String(value);
}

/** The rows of an answer as labelled points: the group keys (the bucket first) joined, and the value. */
export function pointsOf(rows: Record<string, unknown>[], panel: Pick<Panel, 'query'>): ChartPoint[] {
  const bucketField = panel.query.bucket ? panel.query.dateRange?.field : undefined;
  return rows.map((row) => {
    const keys = Object.keys(row).filter((key) => key !== 'value');
    const label = keys.length === 0 ? 'value' : keys.map((key) => labelOf(row[key], key === bucketField)).join(' · ');
    const raw = row.value;
    const numeric = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' && !Number.isNaN(Number(raw)) ? Number(raw) : null;
    return { label, value: numeric, shown: raw === null || raw === undefined ? '—' : String(raw) };
  });
}

const WIDTH = 560;
const BAR_HEIGHT = 22;
const GAP = 6;
const LABEL_WIDTH = 150;

function BarChart({ title, points }: { title: string; points: ChartPoint[] }) {
  const max = Math.max(1, ...points.map((point) => point.value ?? 0));
  const height = points.length * (BAR_HEIGHT + GAP) + GAP;
  const room = WIDTH - LABEL_WIDTH - 60;
  return (
    <svg className="insights-chart" viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-label={`${title}: ${points.map((point) => `${point.label} ${point.shown}`).join(', ')}`}>
      {points.map((point, index) => {
        const y = GAP + index * (BAR_HEIGHT + GAP);
        const width = Math.max(0, ((point.value ?? 0) / max) * room);
        return (
          <g key={`${point.label}-${index}`}>
            <text x={LABEL_WIDTH - 8} y={y + BAR_HEIGHT * 0.7} textAnchor="end" className="insights-chart-label">{point.label.length > 22 ? `${point.label.slice(0, 21)}…` : point.label}</text>
            <rect x={LABEL_WIDTH} y={y} width={width} height={BAR_HEIGHT} rx={3} className="insights-chart-bar" />
            <text x={LABEL_WIDTH + width + 6} y={y + BAR_HEIGHT * 0.7} className="insights-chart-label">{point.shown}</text>
          </g>
        );
      })}
    </svg>
  );
}

function LineChart({ title, points }: { title: string; points: ChartPoint[] }) {
  const height = 220;
  const pad = { left: 50, right: 16, top: 16, bottom: 36 };
  const values = points.map((point) => point.value ?? 0);
  const max = Math.max(1, ...values);
  const min = Math.min(0, ...values);
  const x = (index: number) => pad.left + (points.length <= 1 ? (WIDTH - pad.left - pad.right) / 2 : (index / (points.length - 1)) * (WIDTH - pad.left - pad.right));
  const y = (value: number) => pad.top + (1 - (value - min) / (max - min || 1)) * (height - pad.top - pad.bottom);
  const path = values.map((value, index) => `${index === 0 ? 'M' : 'L'}${x(index).toFixed(1)},${y(value).toFixed(1)}`).join(' ');
  const step = Math.max(1, Math.ceil(points.length / 6));
  return (
    <svg className="insights-chart" viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-label={`${title}: ${points.map((point) => `${point.label} ${point.shown}`).join(', ')}`}>
      <line x1={pad.left} y1={height - pad.bottom} x2={WIDTH - pad.right} y2={height - pad.bottom} className="insights-chart-axis" />
      <line x1={pad.left} y1={pad.top} x2={pad.left} y2={height - pad.bottom} className="insights-chart-axis" />
      <text x={pad.left - 6} y={pad.top + 4} textAnchor="end" className="insights-chart-label">{max}</text>
      <text x={pad.left - 6} y={height - pad.bottom} textAnchor="end" className="insights-chart-label">{min}</text>
      <path d={path} className="insights-chart-line" />
      {points.map((point, index) => (
        <g key={`${point.label}-${index}`}>
          <circle cx={x(index)} cy={y(point.value ?? 0)} r={3.5} className="insights-chart-dot" />
          {index % step === 0 ? (
            <text x={x(index)} y={height - pad.bottom + 16} textAnchor="middle" className="insights-chart-label">{point.label}</text>
          ) : null}
        </g>
      ))}
    </svg>
  );
}

export function PanelChart({ panel, rows }: { panel: Pick<Panel, 'name' | 'type' | 'query'>; rows: Record<string, unknown>[] }) {
  const points = pointsOf(rows, panel);
  const single = points.length === 1 && points[0]!.label === 'value';
  let chart = null;
  if (points.length === 0) chart = <p className="muted">No rows.</p>;
  else if (single || panel.type === 'metric') {
    chart = (
      <p className="insights-metric" aria-label={`${panel.name}: ${points[0]!.shown}`}>
        {points[0]!.shown}
      </p>
    );
  } else if (panel.type === 'line' || panel.query.bucket) chart = <LineChart title={panel.name} points={points} />;
  else if (panel.type !== 'table' && panel.type !== 'list') chart = <BarChart title={panel.name} points={points} />;
  return (
    <div className="stack">
      {chart}
      {points.length > 0 && !single ? (
        <table className="data insights-values" aria-label={`${panel.name} values`}>
          <thead>
            <tr><th scope="col">{(panel.query.groupBy ?? []).join(', ') || (panel.query.bucket ?? 'Group')}</th><th scope="col">{panel.query.aggregate}{panel.query.field ? ` of ${panel.query.field}` : ''}</th></tr>
          </thead>
          <tbody>
            {points.map((point, index) => (
              <tr key={`${point.label}-${index}`}><td>{point.label}</td><td>{point.shown}</td></tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
