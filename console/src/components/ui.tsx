import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { change, num } from "../format";

/** Loads with `load` whenever `deps` change; `reload` loads again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const run = useCallback(() => {
    let live = true;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState({ error: error instanceof Error ? error : new Error(String(error)), loading: false }),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

export function Problem({ error }: { error?: Error | undefined }) {
  return error ? (
    <p role="alert" class="problem">
      {error.message}
    </p>
  ) : null;
}

export function Loading({ when }: { when: boolean }) {
  return when ? <p aria-live="polite" class="muted">Loading…</p> : null;
}

export function Page({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section aria-labelledby="page-title">
      <div class="page-head">
        <h1 id="page-title">{title}</h1>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** Usage against a quota: a meter with its numbers beside it (unlimited when limit is null). */
export function QuotaBar({ label, used, limit }: { label: string; used: number; limit: number | null }) {
  const ratio = limit ? Math.min(used / limit, 1) : 0;
  const level = ratio >= 0.9 ? "high" : ratio >= 0.75 ? "warn" : "ok";
  return (
    <div class="quota">
      <div class="quota-label">
        <span>{label}</span>
        <span>
          {num(used)} / {limit === null ? "unlimited" : num(limit)}
        </span>
      </div>
      <div
        class={`bar bar-${level}`}
        role="meter"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={limit ?? used}
        aria-valuenow={used}
      >
        <span style={{ width: `${(ratio * 100).toFixed(1)}%` }} />
      </div>
    </div>
  );
}

/** A figure with its change against the previous period. `better` says which direction is good. */
export function Tile({
  label,
  value,
  delta,
  unit,
  better = "up",
}: {
  label: string;
  value: string;
  delta?: number | null | undefined;
  unit: "%" | "pp";
  better?: "up" | "down";
}) {
  const good = delta === null || delta === undefined || delta === 0 ? "flat" : (delta > 0) === (better === "up") ? "good" : "bad";
  return (
    <div class="tile">
      <div class="tile-label">{label}</div>
      <div class="tile-value">{value}</div>
      {delta !== undefined && (
        <div class={`tile-delta ${good}`}>
          {change(delta, unit)} <span class="muted">vs previous period</span>
        </div>
      )}
    </div>
  );
}

export interface Series {
  name: string;
  values: number[];
  className: string;
}

/** A line chart in SVG (no chart library: a few hundred bytes instead of a hundred kilobytes). */
export function LineChart({ labels, series, title }: { labels: string[]; series: Series[]; title: string }) {
  const width = 640;
  const height = 200;
  const pad = 28;
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const x = (i: number) => pad + (labels.length <= 1 ? 0 : (i * (width - 2 * pad)) / (labels.length - 1));
  const y = (v: number) => height - pad - (v / max) * (height - 2 * pad);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={title} preserveAspectRatio="none">
        <line x1={pad} y1={height - pad} x2={width - pad} y2={height - pad} class="axis" />
        <text x={4} y={pad} class="tick">
          {num(max)}
        </text>
        <text x={4} y={height - pad} class="tick">
          0
        </text>
        {series.map((s) => (
          <polyline key={s.name} class={s.className} fill="none" points={s.values.map((v, i) => `${x(i)},${y(v)}`).join(" ")} />
        ))}
      </svg>
      <figcaption>
        {series.map((s) => (
          <span key={s.name} class={`legend ${s.className}`}>
            {s.name}: {num(s.values.reduce((a, b) => a + b, 0))}
          </span>
        ))}
        {labels.length > 0 && (
          <span class="muted">
            {labels[0]} – {labels[labels.length - 1]}
          </span>
        )}
      </figcaption>
    </figure>
  );
}

export function EnvBadge({ env }: { env: string }) {
  return <span class={`env-badge env-${env}`}>{env === "test" ? "Test mode" : "Live"}</span>;
}
