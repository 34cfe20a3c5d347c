/**
 * apimachinery's intstr.GetScaledValueFromIntOrPercent: an int is itself, "N%" is N% of `total`,
 * rounded up or down as the caller asks (kube rounds maxSurge up and a Deployment's
 * maxUnavailable down; a DaemonSet's maxUnavailable up).
 */
export function scaledValue(value: number | string | undefined, total: number, roundUp: boolean): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  const match = /^(\d+)%$/.exec(value);
  if (!match) return Number.parseInt(value, 10) || 0;
  const scaled = (Number(match[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}
