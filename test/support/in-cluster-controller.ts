/**
 * The controller of in-cluster-controller.py on @kubernetes/client-node, configured as a pod
 * configures it: `loadFromCluster()` (under SA_DIR: the files the pod has at
 * /var/run/secrets/kubernetes.io/serviceaccount) with KUBERNETES_SERVICE_HOST/PORT in the environment.
 *
 * node in-cluster-controller.js SA_DIR GROUP VERSION PLURAL NAME: watches PLURAL in the namespace
 * the pod's files name until NAME appears, writes its status, and prints one JSON object of what
 * it saw; exits 1 on any error, or when NAME is not seen within 30 seconds.
 */
import { CustomObjectsApi, KubeConfig, Watch } from '@kubernetes/client-node';

const [saDir, group, version, plural, name] = process.argv.slice(2);
const SA_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';

const fail = (why: unknown) => {
  process.stderr.write(`${why instanceof Error ? (why.stack ?? why.message) : String(why)}\n`);
  process.exit(1);
};

const kc = new KubeConfig();
// client-node reads the files at its prefix followed by the standard path.
kc.loadFromCluster(saDir.slice(0, saDir.length - SA_PATH.length));
const namespace = kc.getContextObject(kc.getCurrentContext())?.namespace ?? '';
const api = kc.makeApiClient(CustomObjectsApi);
const seen: string[][] = [];
const timer = setTimeout(() => fail(`${name} not seen in ${namespace} within 30 s`), 30_000);

const watching = await new Watch(kc).watch(
  `/apis/${group}/${version}/namespaces/${namespace}/${plural}`,
  {},
  (type, object: any) => {
    seen.push([type, object.apiVersion, object.metadata.namespace, object.metadata.name]);
    if (object.metadata.name !== name) return;
    object.status = { seenBy: 'client-node', namespace: object.metadata.namespace };
    api
      .replaceNamespacedCustomObjectStatus({ group, version, namespace, plural, name, body: object })
      .then((written: any) => {
        clearTimeout(timer);
        watching.abort();
        process.stdout.write(`${JSON.stringify({ namespace, seen, status: written.status })}\n`);
      })
      .catch(fail);
  },
  (err) => {
    if (err && (err as Error).name !== 'AbortError') fail(err);
  },
);
