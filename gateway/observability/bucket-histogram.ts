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

/** Where a series sits in its tree: a key no label value can be. */
const LEAF = Symbol('series');
type SeriesTree = Map<string | symbol, SeriesTree | Series>;

/**
 * A Prometheus histogram, exported as prom-client's Histogram exports one, that observes at the
 * cost of a lookup and three additions. prom-client's `observe` validates and hashes the labels
 * and keeps its buckets in an object keyed by each bound's decimal text, so every observation
 * formats floats as strings: with five histograms observed on every forwarded GET, that was
 * about 8 µs of its CPU. Observed on every request, hence the shortcut.
 */
export class BucketHistogram<Label extends string> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum' as const;
  private readonly labelNames: readonly Label[];
  private readonly bounds: Float64Array;
  /** The series by their labels' values, one level per label; a series under LEAF at the last. */
  private tree: SeriesTree = new Map();
  /** Every series, in the order they were first observed. */
  private series: Series[] = [];

  constructor(config: BucketHistogramConfig<Label>) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    this.bounds = Float64Array.from(config.buckets);
    for (const registry of config.registers) registry.registerMetric(this as never);
  }

  observe(labels: Record<Label, string>, value: number): void {
    // One Map per label, in the order of labelNames: each label's value is looked up as it is
    // (its hash kept in the string), no key string is built.
    let level: SeriesTree = this.tree;
    for (const name of this.labelNames) {
      const labelValue = labels[name];
      let next = level.get(labelValue);
      if (!next) level.set(labelValue, (next = new Map()));
      level = next as SeriesTree;
    }
    let series = level.get(LEAF) as Series | undefined;
    if (!series) {
      const own: Record<string, string> = {};
      for (const name of this.labelNames) own[name] = labels[name];
      series = { labels: own, counts: new Float64Array(this.bounds.length), sum: 0, count: 0 };
      level.set(LEAF, series);
      this.series.push(series);
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
    for (const { labels, counts, sum, count } of this.series) {
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
    this.tree = new Map();
    this.series = [];
  }
}
