/**
 * Go's duration syntax (`time.ParseDuration`), which Karmada's and kube's flags take: a sequence
 * of decimal numbers each with a unit (`ns`, `us`/`µs`, `ms`, `s`, `m`, `h`), such as `30s`,
 * `1m30s` or `1.5h`; `0` alone needs no unit. In milliseconds; undefined when it is not one.
 * Signs are refused: no flag here takes a negative duration.
 */
const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const PART = /(\d+\.?\d*|\.\d+)(ns|us|µs|ms|s|m|h)/y;

export function parseGoDuration(text: string): number | undefined {
  if (text === '0') return 0;
  if (text === '') return undefined;
  let ms = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < text.length) {
    const match = PART.exec(text);
    if (!match) return undefined;
    ms += Number(match[1]) * UNIT_MS[match[2]];
  }
  return ms;
}
