/**
 * The built-in kinds whose versions differ in shape. Every other kind is the same object at each
 * version it is served at (as a custom resource with the `None` conversion strategy).
 */
import { horizontalPodAutoscalerConversion } from './horizontal-pod-autoscaler.js';
import type { KindConversion } from './kind-conversion.js';

const CONVERSIONS: ReadonlyMap<string, KindConversion> = new Map([
  ['autoscaling/HorizontalPodAutoscaler', horizontalPodAutoscalerConversion],
]);

export function conversionFor(group: string, kind: string): KindConversion | undefined {
  return CONVERSIONS.get(`${group}/${kind}`);
}
