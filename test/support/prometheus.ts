/**
 * The service's /metrics read back as Prometheus would: the text parsed by a real
 * text-format parser (parse-prometheus-text-format), and each series found by its name and
 * labels. The parser folds a histogram's labelled series into one, so a histogram's series are
 * read through prom-client's own registry of an in-process service instead (histogramOf).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import parse, { type Family } from "parse-prometheus-text-format";
import type { Registry } from "prom-client";

export interface Scrape {
  families: Family[];
  text: string;
  /** The value of the series `name` whose labels include `labels`; undefined when absent. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** The sum of every series of `name` whose labels include `labels` (0 when none). */
  total(name: string, labels?: Record<string, string>): number;
}

export async function scrape(base: string, token?: string): Promise<Scrape> {
  const answer = await fetch(`${base}/metrics`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  const text = await answer.text();
  if (answer.status !== 200) throw new Error(`/metrics answered ${answer.status}: ${text}`);
  return read(text);
}

export function read(text: string): Scrape {
  const families = parse(text);
  const series = (name: string, labels: Record<string, string>) =>
    (families.find((f) => f.name === name)?.metrics ?? []).filter((m) =>
      Object.entries(labels).every(([k, v]) => m.labels?.[k] === v),
    );
  return {
    families,
    text,
    value(name, labels = {}) {
      const found = series(name, labels)[0];
      return found?.value === undefined ? undefined : Number(found.value);
    },
    total(name, labels = {}) {
      return series(name, labels).reduce((sum, m) => sum + Number(m.value ?? 0), 0);
    },
  };
}

/** A histogram's series with these labels: its count, sum and cumulative buckets. */
export async function histogramOf(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
): Promise<{ count: number; sum: number; buckets: Map<number, number> } | undefined> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const match = (l: Record<string, unknown>) =>
    Object.entries(labels).every(([k, v]) => l[k] === v);
  const values = metric?.values.filter((v) => match(v.labels)) ?? [];
  if (values.length === 0) return undefined;
  const buckets = new Map<number, number>();
  let count = 0;
  let sum = 0;
  for (const v of values) {
    const kind = (v as { metricName?: string }).metricName ?? "";
    if (kind.endsWith("_bucket"))
      buckets.set(v.labels.le === "+Inf" ? Infinity : Number(v.labels.le), v.value);
    else if (kind.endsWith("_count")) count = v.value;
    else if (kind.endsWith("_sum")) sum = v.value;
  }
  return { count, sum, buckets };
}

/** Every `wayfarer_*` metric docs/guide/operations.md names (a histogram's series by its name). */
export function guideMetricNames(): Set<string> {
  const guide = readFileSync(
    join(import.meta.dirname, "..", "..", "docs", "guide", "operations.md"),
    "utf8",
  );
  return new Set(
    [...guide.matchAll(/\bwayfarer_[a-z_]+[a-z](?![a-z_*])/g)].map(([name]) =>
      name.replace(/_(bucket|sum|count)$/, ""),
    ),
  );
}
