/**
 * Karmada's cluster taints and a tenant's cluster tolerations: which taints a toleration tolerates
 * (k8s core/v1 `Toleration.ToleratesTaint`), which tolerations a tenant uses on a cluster and for
 * how long they hold (Karmada pkg/util/helper/taint.go), and whether a cluster is fit for placement
 * (Karmada's scheduler TaintToleration filter). Pure: no I/O, the current time is an argument.
 */

/** A taint as in a Cluster's `spec.taints` (corev1.Taint). */
export interface ClusterTaint {
  key: string;
  value?: string;
  /** NoSchedule, PreferNoSchedule or NoExecute; any other effect is kept and matches only itself. */
  effect: string;
  /** RFC 3339; set when the taint was added, and only read for NoExecute taints. */
  timeAdded?: string;
}

/** A toleration as in a Tenant's `spec.clusterTolerations` (corev1.Toleration). */
export interface ClusterToleration {
  key?: string;
  /** Exists or Equal (the default); any other operator (kube's Lt, Gt) tolerates nothing. */
  operator?: string;
  value?: string;
  effect?: string;
  /** How long a NoExecute taint is tolerated once added; absent or null: for ever. */
  tolerationSeconds?: number | null;
}

/** The effects that keep a tenant off a cluster it is not yet on; PreferNoSchedule only steers. */
export const PLACEMENT_EFFECTS: readonly string[] = ['NoSchedule', 'NoExecute'];

/**
 * Whether the toleration tolerates the taint. An empty key only passes the key check: kube's
 * validation, not this match, is what requires `Exists` with it. Lt and Gt never tolerate:
 * Karmada turns kube's numeric comparison off for clusters, whose taints are not node SLAs.
 */
export function toleratesTaint(toleration: ClusterToleration, taint: ClusterTaint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

export function noExecuteTaints(taints: readonly ClusterTaint[]): ClusterTaint[] {
  return taints.filter((taint) => taint.effect === 'NoExecute');
}

export function hasNoExecuteTaints(taints: readonly ClusterTaint[]): boolean {
  return taints.some((taint) => taint.effect === 'NoExecute');
}

/** Whether a taint with the same key and effect is in the list: a cluster holds one taint per pair. */
export function taintExists(taints: readonly ClusterTaint[], taint: ClusterTaint): boolean {
  return taints.some((existing) => existing.key === taint.key && existing.effect === taint.effect);
}

/**
 * Whether a toleration with the same key, effect, operator and value is in the list (kube's
 * `MatchToleration`): tolerationSeconds is left out, so one toleration is not added twice with
 * two durations. An absent field and "" are the same, as in Go; "" and "Equal" are not.
 */
export function tolerationExists(tolerations: readonly ClusterToleration[], toleration: ClusterToleration): boolean {
  return tolerations.some(
    (existing) =>
      (existing.key ?? '') === (toleration.key ?? '') &&
      (existing.effect ?? '') === (toleration.effect ?? '') &&
      (existing.operator ?? '') === (toleration.operator ?? '') &&
      (existing.value ?? '') === (toleration.value ?? ''),
  );
}

/**
 * Whether every taint is tolerated, and the toleration used for each (the first that tolerates it,
 * so the list may repeat one). An untolerated taint makes the list empty: nothing is held then.
 */
export function matchingTolerations(
  taints: readonly ClusterTaint[],
  tolerations: readonly ClusterToleration[],
): { tolerated: boolean; used: ClusterToleration[] } {
  if (taints.length === 0) return { tolerated: true, used: [] };
  const used: ClusterToleration[] = [];
  for (const taint of taints) {
    const toleration = tolerations.find((candidate) => toleratesTaint(candidate, taint));
    if (!toleration) return { tolerated: false, used: [] };
    used.push(toleration);
  }
  return { tolerated: true, used };
}

/**
 * How long, in ms, the used tolerations still hold against these (NoExecute) taints: -1 for ever,
 * 0 not any more. Every used toleration with a duration counts against every timed taint it
 * tolerates, not only the taint it was picked for, and the earliest end wins. A taint without a
 * (readable) timeAdded has no start to count from, so it never ends a toleration.
 */
export function minTolerationMs(
  taints: readonly ClusterTaint[],
  usedTolerations: readonly ClusterToleration[],
  now: Date,
): number {
  if (taints.length === 0) return -1;
  // Taints with no toleration used against them are not tolerated at all: their time is up.
  if (usedTolerations.length === 0) return 0;
  let earliestEnd = Infinity;
  for (const toleration of usedTolerations) {
    if (toleration.tolerationSeconds == null) continue;
    for (const taint of taints) {
      const added = taint.timeAdded === undefined ? NaN : Date.parse(taint.timeAdded);
      if (Number.isNaN(added) || !toleratesTaint(toleration, taint)) continue;
      earliestEnd = Math.min(earliestEnd, added + toleration.tolerationSeconds * 1000);
    }
  }
  if (earliestEnd === Infinity) return -1;
  return Math.max(0, earliestEnd - now.getTime());
}

/**
 * Whether the tolerations let a tenant onto a cluster with these taints: every taint with one of
 * `effects` must be tolerated; taints with other effects do not count.
 */
export function tolerates(
  taints: readonly ClusterTaint[],
  tolerations: readonly ClusterToleration[],
  effects: readonly string[] = PLACEMENT_EFFECTS,
): boolean {
  return taints.every(
    (taint) => !effects.includes(taint.effect) || tolerations.some((toleration) => toleratesTaint(toleration, taint)),
  );
}
