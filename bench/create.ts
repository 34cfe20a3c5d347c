/**
 * `create`: 16 concurrent clients each creating a ConfigMap, merge-patching its labels and
 * deleting it again, then the same with a Deployment (strategic merge patch of its template), on the direct path and through the gateway; writes carry a body to translate
 * up and an object to translate down, and wait for the devcluster's fsync on both paths. The
 * gateway checks what every write will store (docs/isolation.md): a create's converted body
 * locally, a patch by an upstream dry run first.
 */
import { measureBoth, roundsFor } from './harness/compare.js';
import { withEnvironment, type BenchOptions, QUICK_RUN_MS, QUICK_WARMUP } from './harness/environment.js';
import { caseOf, report } from './harness/results.js';
import { createBenchTenant } from './harness/tenant.js';

const TENANT = 'bencre';
const CLIENTS = 16;

/** A small application config, as a Helm chart would render it. */
const configMap = (name: string) =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, labels: { app: 'checkout', 'app.kubernetes.io/managed-by': 'Helm' } },
    data: {
      'application.properties':
        'server.port=8080\nlogging.level.root=INFO\npayments.endpoint=http://payments:8080\ncache.ttl=300\n',
      FEATURE_FLAGS: 'new-cart,fast-checkout',
    },
  });

/** A small web Deployment: a kind whose objects carry invariants of their own (its pod template's references). */
const deployment = (name: string) =>
  JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: 'web' } },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          serviceAccountName: 'default',
          containers: [{ name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }],
        },
      },
    },
  });

export async function benchCreate(options: BenchOptions): Promise<number> {
  const shape = {
    concurrency: CLIENTS,
    warmup: options.quick ? QUICK_WARMUP : 200,
    durationMs: options.quick ? QUICK_RUN_MS : 8000,
  };
  const { result, run } = await withEnvironment(options, async (env) => {
    const tenant = await createBenchTenant(env, TENANT);
    const steps = (namespace: string, name: string) => [
      { method: 'POST', path: `/api/v1/namespaces/${namespace}/configmaps`, body: configMap(name) },
      {
        method: 'PATCH',
        path: `/api/v1/namespaces/${namespace}/configmaps/${name}`,
        body: '{"metadata":{"labels":{"release":"r{n}"}}}',
        contentType: 'application/merge-patch+json',
      },
      { method: 'DELETE', path: `/api/v1/namespaces/${namespace}/configmaps/${name}` },
    ];
    const { direct, gateway } = await measureBoth(
      'create + patch + delete ConfigMap',
      tenant,
      steps(`${TENANT}-default`, 'direct-{n}'),
      steps('default', 'gateway-{n}'),
      shape,
      roundsFor(options),
    );
    // A patch of a kind with invariants of its own costs the gateway an upstream dry run first.
    const deploymentSteps = (namespace: string, name: string) => [
      { method: 'POST', path: `/apis/apps/v1/namespaces/${namespace}/deployments`, body: deployment(name) },
      {
        method: 'PATCH',
        path: `/apis/apps/v1/namespaces/${namespace}/deployments/${name}`,
        body: '{"spec":{"template":{"metadata":{"labels":{"release":"r{n}"}}}}}',
        contentType: 'application/strategic-merge-patch+json',
      },
      { method: 'DELETE', path: `/apis/apps/v1/namespaces/${namespace}/deployments/${name}` },
    ];
    const apps = await measureBoth(
      'create + patch + delete Deployment',
      tenant,
      deploymentSteps(`${TENANT}-default`, 'direct-{n}'),
      deploymentSteps('default', 'gateway-{n}'),
      shape,
      roundsFor(options),
    );
    return [
      caseOf('create ConfigMap', CLIENTS, direct.steps[0], gateway.steps[0]),
      caseOf('merge-patch ConfigMap', CLIENTS, direct.steps[1], gateway.steps[1]),
      caseOf('delete ConfigMap', CLIENTS, direct.steps[2], gateway.steps[2]),
      caseOf('create Deployment', CLIENTS, apps.direct.steps[0], apps.gateway.steps[0]),
      caseOf('strategic-patch Deployment', CLIENTS, apps.direct.steps[1], apps.gateway.steps[1]),
      caseOf('delete Deployment', CLIENTS, apps.direct.steps[2], apps.gateway.steps[2]),
    ];
  });
  return report('create', options.quick, result, run);
}
