/** The samples of a Prometheus text exposition, as the tests read /metrics. */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a text exposition (comments left out). */
export function samples(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m) throw new Error(`not a sample: ${line}`);
      const labels: Record<string, string> = {};
      for (const [, name, value] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
        labels[name] = value.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      return { name: m[1], labels, value: Number(m[3]) };
    });
}

/** The sum of the samples of `name` whose labels include `labels`, by the value of `by`. */
export function sumBy(
  all: Sample[],
  name: string,
  by: (labels: Record<string, string>) => string,
  labels: Record<string, string> = {},
): Map<string, number> {
  const sums = new Map<string, number>();
  for (const s of all)
    if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) {
      const key = by(s.labels);
      sums.set(key, (sums.get(key) ?? 0) + s.value);
    }
  return sums;
}
