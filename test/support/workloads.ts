import { expect } from 'chai';
import type { ApiClient, WatchStream } from './api-client.js';
import { eventually } from './eventually.js';
import type { Kubectl } from './kubectl.js';

/** The smallest Deployment: one nginx container, its pods selected by `app: <name>`. */
export const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } },
  },
});

/** What the workload tests read: objects through kubectl's JSON output. */
export async function getJson(kubectl: Kubectl, args: string[]): Promise<any> {
  return JSON.parse(await kubectl.ok(['get', ...args, '-o', 'json']));
}

export const isReady = (pod: any): boolean =>
  (pod.status?.conditions ?? []).some((c: any) => c.type === 'Ready' && c.status === 'True');

/** Waits until `count` pods of `selector` exist in `namespace`, every one Ready, and returns them. */
export async function readyPods(kubectl: Kubectl, namespace: string, selector: string, count: number): Promise<any[]> {
  let pods: any[] = [];
  await eventually(
    async () => (pods = (await getJson(kubectl, ['pods', '-n', namespace, '-l', selector])).items),
    (items: any[]) => {
      expect(items.filter((p) => !p.metadata.deletionTimestamp).map((p) => isReady(p))).to.deep.equal(
        Array(count).fill(true),
      );
    },
  );
  return pods;
}

/**
 * The pods of a watch as they stood after each event: `check` runs on every state the watch went
 * through (live pods, and the ready ones among them), so an invariant is asserted on all of them.
 * The first `initial` events are the pods that were there when the watch began (ADDED one by
 * one): the states are checked from the last of them on.
 */
export function everyPodState(watch: WatchStream, initial: number, check: (live: any[], ready: any[]) => void): number {
  const pods = new Map<string, any>();
  for (const [index, event] of watch.events.entries()) {
    if (event.type === 'BOOKMARK' || event.type === 'ERROR') continue;
    if (event.type === 'DELETED') pods.delete(event.object.metadata.name);
    else pods.set(event.object.metadata.name, event.object);
    if (index < initial - 1) continue;
    const live = [...pods.values()].filter((p) => !p.metadata.deletionTimestamp);
    check(live, live.filter(isReady));
  }
  return watch.events.length;
}

/** A watch of one namespace's pods of a label selector, from their current state. */
export function watchPods(api: ApiClient, namespace: string, selector: string): WatchStream {
  return api.watch(`/api/v1/namespaces/${namespace}/pods?watch=true&labelSelector=${encodeURIComponent(selector)}`);
}
