/**
 * The `watch` benchmark's writer: ConfigMap writes straight to the devcluster at a steady rate,
 * each stamped (watch-stamp.ts). Write i is due at i / rate seconds after the start, whatever
 * the answers to earlier ones, so the event stream is as steady as the devcluster allows. Lanes
 * run side by side, each over objects of its own, so that an object is always created before
 * it is patched: a lane's first write to an object creates it (an ADDED event), the next ones
 * patch its annotations (MODIFIED). Several writers can share one numbering (one per cluster,
 * writing every `stride`-th number from `offset`), and write Pods instead of ConfigMaps.
 */
import { Pool } from 'undici';
import { realisticPod } from './pods.js';
import { sleep } from './sleep.js';
import type { Target } from './target.js';
import { stampAnnotations } from './watch-stamp.js';

const LANES = 32;
const OBJECTS_PER_LANE = 8;

export interface WriterRun {
  /** From the first write sent to the last answered. */
  seconds: number;
  /** Sequence numbers of the writes that failed. */
  failedSeqs: number[];
  firstError?: string;
}

export interface WriterOptions {
  /** What is written: ConfigMaps (the default) or realistic Pods. */
  resource?: 'configmaps' | 'pods';
  /** Write i is numbered `offset + i * stride`, so that writers to several clusters share one numbering. */
  stride?: number;
  offset?: number;
}

/** `writes` writes at `perSecond` into `namespace` upstream, on objects named `<prefix>-<lane>-<n>`. */
export async function writePaced(
  target: Target,
  namespace: string,
  prefix: string,
  writes: number,
  perSecond: number,
  { resource = 'configmaps', stride = 1, offset = 0 }: WriterOptions = {},
): Promise<WriterRun> {
  const pool = new Pool(target.origin, {
    connections: LANES,
    connect: { ca: target.ca, cert: target.cert, key: target.key },
  });
  const failedSeqs: number[] = [];
  let firstError: string | undefined;
  // Every lane's connection open and its TLS handshake done before the first write is due.
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      const res = await pool.request({
        method: 'GET',
        path: `/api/v1/namespaces/${namespace}`,
        headers: { ...target.headers, accept: 'application/json' },
      });
      await res.body.text();
    }),
  );
  let next = 0;
  const started = performance.now();
  const lane = async (laneIndex: number) => {
    for (let own = 0; next < writes; own++) {
      const index = next++;
      const seq = offset + index * stride;
      const wait = started + (index * 1000) / perSecond - performance.now();
      if (wait > 1) await sleep(wait);
      const name = `${prefix}-${laneIndex}-${own % OBJECTS_PER_LANE}`;
      const create = own < OBJECTS_PER_LANE;
      const annotations = stampAnnotations(seq);
      const body = !create
        ? { metadata: { annotations } }
        : resource === 'pods'
          ? stampedPod(namespace, name, annotations)
          : configMap(name, annotations);
      try {
        const res = await pool.request({
          method: create ? 'POST' : 'PATCH',
          path: `/api/v1/namespaces/${namespace}/${resource}${create ? '' : `/${name}`}`,
          headers: {
            ...target.headers,
            'content-type': create ? 'application/json' : 'application/merge-patch+json',
            accept: 'application/json',
          },
          body: JSON.stringify(body),
        });
        const text = await res.body.text();
        if (res.statusCode !== (create ? 201 : 200)) throw new Error(`${res.statusCode} ${text.slice(0, 300)}`);
      } catch (err) {
        failedSeqs.push(seq);
        firstError ??= `${create ? 'creating' : 'patching'} ${resource} ${namespace}/${name}: ${(err as Error).message}`;
      }
    }
  };
  await Promise.all(Array.from({ length: LANES }, (_, i) => lane(i)));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return { seconds, failedSeqs, firstError };
}

/** A realistic Pod named `name`, carrying the stamp among its annotations. */
function stampedPod(namespace: string, name: string, annotations: Record<string, string>): Record<string, unknown> {
  const pod = realisticPod(namespace, 0) as { metadata: { annotations: Record<string, string> } };
  return { ...pod, metadata: { ...pod.metadata, name, annotations: { ...pod.metadata.annotations, ...annotations } } };
}

/** A small application config, as a Helm chart would render it. */
function configMap(name: string, annotations: Record<string, string>): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, labels: { app: 'checkout', 'app.kubernetes.io/managed-by': 'Helm' }, annotations },
    data: {
      'application.properties':
        'server.port=8080\nlogging.level.root=INFO\npayments.endpoint=http://payments:8080\ncache.ttl=300\n',
      FEATURE_FLAGS: 'new-cart,fast-checkout',
    },
  };
}
