/**
 * The taint argument of `paddock cluster taint|untaint`, in kubectl taint's syntax and with its
 * messages (k8s.io/kubectl/pkg/cmd/taint parseTaint): `KEY[=VALUE]:EFFECT` to add a taint,
 * `KEY[:EFFECT]` to remove one. A Cluster's taint is NoSchedule or NoExecute only (Karmada's
 * validation refuses PreferNoSchedule), so any other effect is refused here, before a request.
 * Pure: a result or the message saying what is wrong.
 */
import { isQualifiedName, isValidLabelValue } from '../apiserver/validation/names.js';

export const CLUSTER_TAINT_EFFECTS = ['NoSchedule', 'NoExecute'] as const;
export type ClusterTaintEffect = (typeof CLUSTER_TAINT_EFFECTS)[number];

export interface TaintToAdd {
  key: string;
  value?: string;
  effect: ClusterTaintEffect;
}

export interface TaintToRemove {
  key: string;
  /** Absent: every taint with the key, whatever its effect. */
  effect?: ClusterTaintEffect;
}

type Parsed<T> = { taint: T } | { error: string };

/** `KEY[=VALUE]:EFFECT`: the effect is required, as kubectl requires it to add a taint. */
export function parseTaintToAdd(argument: string): Parsed<TaintToAdd> {
  const parts = argument.split(':');
  if (parts.length === 1) return { error: `invalid taint spec: ${argument}, a taint to add is KEY[=VALUE]:EFFECT` };
  if (parts.length > 2) return { error: `invalid taint spec: ${argument}` };
  const effect = parseEffect(parts[1]);
  if ('error' in effect) return effect;
  const keyValue = parts[0].split('=');
  if (keyValue.length > 2) return { error: `invalid taint spec: ${argument}` };
  const [key, value] = keyValue;
  const errors = [...isQualifiedName(key), ...(value === undefined ? [] : isValidLabelValue(value))];
  if (errors.length) return { error: `invalid taint spec: ${argument}, ${errors.join('; ')}` };
  return { taint: { key, ...(value === undefined ? {} : { value }), effect: effect.effect } };
}

/** `KEY[:EFFECT]`: a taint is removed by key, or by key and effect; its value plays no part. */
export function parseTaintToRemove(argument: string): Parsed<TaintToRemove> {
  const parts = argument.split(':');
  if (parts.length > 2) return { error: `invalid taint spec: ${argument}` };
  if (parts[0].includes('=')) return { error: `invalid taint spec: ${argument}, a taint to remove is KEY[:EFFECT]` };
  const [key, effectText] = parts;
  const errors = isQualifiedName(key);
  if (errors.length) return { error: `invalid taint spec: ${argument}, ${errors.join('; ')}` };
  if (effectText === undefined) return { taint: { key } };
  const effect = parseEffect(effectText);
  return 'error' in effect ? effect : { taint: { key, effect: effect.effect } };
}

/** kubectl's form of a taint, as its messages name one: `key=value:Effect`, `key:Effect`, `key`. */
export function taintText(taint: { key: string; value?: string; effect?: string }): string {
  return `${taint.key}${taint.value ? `=${taint.value}` : ''}${taint.effect ? `:${taint.effect}` : ''}`;
}

function parseEffect(text: string): { effect: ClusterTaintEffect } | { error: string } {
  return (CLUSTER_TAINT_EFFECTS as readonly string[]).includes(text)
    ? { effect: text as ClusterTaintEffect }
    : { error: `invalid taint effect: ${text}, a cluster's taint is ${CLUSTER_TAINT_EFFECTS.join(' or ')}` };
}
