import type { Registry } from 'prom-client';

export interface BucketHistogramConfig<Label extends string> {
  name: string;
  help: string;
  labelNames: readonly Label[];
  buckets: readonly number[];
  registers: Registry[];
}

/** One line of the exposition, as prom-client's registry takes it. */
interface ExportedValue {
  metricName: string;
  labels: Record<string, string | number>;
  value: number;
}

/** One series: its labels, a count per bucket (not cumulative), the sum and the count. */
interface Series {
  labels: Record<string, string>;
  counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * A Prometheus histogram, exported as prom-client's Histogram exports one, that observes at the
 * cost of a lookup and three additions. prom-client's `observe` validates and hashes the labels
 * and keeps its buckets in an object keyed by each bound's decimal text, so every observation
 * formats floats as strings: with five histograms observed on every forwarded GET, that was
 * about 8 µs of its CPU. Observed on every request, hence the shortcut; the series are found by
 * the labels' values joined, in the order of `labelNames`.
 */
export class BucketHistogram<Label extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum' as const;
  private readonly labelNames: readonly Label[];
  private readonly bounds: Float64Array;
  private readonly series = new Map<string, Series>();

  constructor(config: BucketHistogramConfig<Label>) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    this.bounds = Float64Array.from(config.buckets);
    for (const registry of config.registers) registry.registerMetric(this as never);
  }

  observe(labels: Record<Label, string>, value: number): void {
    let key = '';
    for (const name of this.labelNames) key += `${labels[name]}\u0000`;
    let series = this.series.get(key);
    if (!series) {
      const own: Record<string, string> = {};
      for (const name of this.labelNames) own[name] = labels[name];
      series = { labels: own, counts: new Float64Array(this.bounds.length), sum: 0, count: 0 };
      this.series.set(key, series);
    }
    const { bounds } = this;
    let i = 0;
    while (i < bounds.length && value > bounds[i]) i++;
    if (i < bounds.length) series.counts[i]++;
    series.sum += value;
    series.count++;
  }

  /** What prom-client's registry writes, as for its own histograms: per series, its cumulative buckets (`le` first), `+Inf`, sum and count. */
  get(): { name: string; help: string; type: string; values: ExportedValue[]; aggregator: string } {
    const values: ExportedValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, counts, sum, count } of this.series.values()) {
      let cumulative = 0;
      for (let i = 0; i < this.bounds.length; i++) {
        cumulative += counts[i];
        values.push({ metricName: bucket, labels: { le: this.bounds[i], ...labels }, value: cumulative });
      }
      values.push({ metricName: bucket, labels: { le: '+Inf', ...labels }, value: count });
      values.push({ metricName: `${this.name}_sum`, labels, value: sum });
      values.push({ metricName: `${this.name}_count`, labels, value: count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }

  reset(): void {
    this.series.clear();
  }
}
