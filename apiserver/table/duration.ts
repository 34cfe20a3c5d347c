/**
 * Human-readable durations, as apimachinery's util/duration prints them: the ages kubectl shows in
 * `AGE` columns come from the server, so they must match kube-apiserver's output exactly.
 */

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Go converts with int(), which truncates toward zero. */
const whole = (ms: number, unit: number): number => Math.trunc(ms / unit);

/** ~2-3 significant figures: `119s`, `2m10s`, `10m`, `3h4m`, `47h`, `2d3h`, `8d`, `2y34d`, `8y`. */
export function humanDuration(ms: number): string {
  const seconds = whole(ms, SECOND);
  // Up to 2s in the future still reads as "now", to tolerate clock skew between machines.
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = whole(ms, MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 3 * 60) return `${minutes}m`;
  const hours = whole(ms, HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}
