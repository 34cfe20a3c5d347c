/**
 * deploy/'s manifests against the devcluster with the real kubectl: every object of every file
 * is accepted by a server-side dry run (kube's validation of each kind, apiserver/validation/kinds/)
 * and nothing is stored; an invalid copy is refused. Then what no API server checks: the
 * manifests agree with each other (selectors, ports, Service names) and with `paddock serve`
 * (only flags it declares).
 */
import { expect } from 'chai';
import { SERVE } from '../../cmd/cli-commands.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { labelSelectorFromObject } from '../../apiserver/selectors/label-selector.js';
import { ApiClient } from '../support/api-client.js';
import { deployManifests, deployObject, deployObjects } from '../support/deploy-manifests.js';
import { Kubectl } from '../support/kubectl.js';
import { makeTempDir } from '../support/temp-dir.js';

type Json = Record<string, any>;

const NAMESPACE = 'paddock-system';

/** The resource of each kind deploy/ holds: a kind added there without a line here fails the test. */
const PLURALS: Readonly<Record<string, string>> = {
  Namespace: 'namespaces',
  Service: 'services',
  StatefulSet: 'statefulsets',
  Deployment: 'deployments',
  PodDisruptionBudget: 'poddisruptionbudgets',
  NetworkPolicy: 'networkpolicies',
  ServiceAccount: 'serviceaccounts',
  Secret: 'secrets',
  ClusterRole: 'clusterroles',
  ClusterRoleBinding: 'clusterrolebindings',
  PersistentVolumeClaim: 'persistentvolumeclaims',
};

function groupOf(object: Json): string {
  const apiVersion = String(object.apiVersion);
  return apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
}

/** The object's REST path, as a GET after the dry run reads it. */
function objectPath(object: Json): string {
  const plural = PLURALS[object.kind];
  if (!plural) throw new Error(`no resource known for kind ${object.kind}: add it to PLURALS`);
  const base = object.apiVersion === 'v1' ? '/api/v1' : `/apis/${object.apiVersion}`;
  const namespace = object.metadata.namespace ? `/namespaces/${object.metadata.namespace}` : '';
  return `${base}${namespace}/${plural}/${object.metadata.name}`;
}

/** What kubectl prints for an object a server-side dry run created. */
function dryRunLine(object: Json): string {
  const group = groupOf(object);
  return `${String(object.kind).toLowerCase()}${group ? `.${group}` : ''}/${object.metadata.name} created (server dry run)`;
}

describe('deploy/: the manifests, dry-run with the real kubectl against the devcluster', function () {
  this.timeout(120_000);
  let cluster: DevCluster;
  let remove: () => Promise<void>;
  let admin: Kubectl;
  let api: ApiClient;

  before(async () => {
    const dir = await makeTempDir('deploy-manifests');
    remove = dir.remove;
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: dir.dir });
    admin = await Kubectl.create(cluster.kubeconfigPath);
    api = await ApiClient.load(cluster.kubeconfigPath);
  });
  after(async () => {
    api?.close();
    await admin?.dispose();
    await cluster?.stop();
    await remove?.();
  });

  async function expectAbsent(objects: Json[]): Promise<void> {
    for (const object of objects) {
      const res = await api.request('GET', objectPath(object));
      expect(res.status, `GET ${objectPath(object)} after the dry run`).to.equal(404);
    }
  }

  it('holds the files README.md names, each with at least one object', () => {
    expect(deployManifests().map((m) => [m.file, m.objects.length > 0])).to.deep.equal([
      ['etcd.yaml', true],
      ['gateway.yaml', true],
      ['member-rbac.yaml', true],
      ['namespace.yaml', true],
      ['network-policy.yaml', true],
    ]);
  });

  it('namespace.yaml: created (server dry run), and not stored; what needs it is refused until it exists, as on a cluster', async () => {
    const namespace = deployManifests().find((m) => m.file === 'namespace.yaml')!;
    const result = await admin.run(['apply', '--dry-run=server', '-f', namespace.path]);
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.equal(`${namespace.objects.map(dryRunLine).join('\n')}\n`);
    await expectAbsent(namespace.objects);

    // kube's NamespaceLifecycle admission refuses an object in a namespace that does not exist, dry run or not.
    const etcd = deployManifests().find((m) => m.file === 'etcd.yaml')!;
    const refused = await admin.run(['apply', '--dry-run=server', '-f', etcd.path]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include(`namespaces "${NAMESPACE}" not found`);

    // So the namespace is applied for real first (README.md's order), and the rest dry-run in it.
    expect(await admin.ok(['apply', '-f', namespace.path])).to.equal(`namespace/${NAMESPACE} created\n`);
  });

  for (const manifest of deployManifests().filter((m) => m.file !== 'namespace.yaml')) {
    it(`${manifest.file}: every object created (server dry run), and none stored`, async () => {
      const result = await admin.run(['apply', '--dry-run=server', '-f', manifest.path]);
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stderr).to.equal('');
      expect(result.stdout).to.equal(`${manifest.objects.map(dryRunLine).join('\n')}\n`);
      await expectAbsent(manifest.objects);
    });
  }

  it("etcd.yaml: the claims the StatefulSet's controller will make of its claim templates are valid (kube 1.32 checks them only then)", async () => {
    const sts = deployObject('StatefulSet', 'paddock-etcd');
    const claims = sts.spec.volumeClaimTemplates.map((template: Json) => ({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: `${template.metadata.name}-${sts.metadata.name}-0`, namespace: NAMESPACE },
      spec: template.spec,
    }));
    const result = await admin.run(
      ['apply', '--dry-run=server', '-f', '-'],
      JSON.stringify({ kind: 'List', apiVersion: 'v1', items: claims }),
    );
    expect(result.code, result.stderr).to.equal(0);
    expect(result.stdout).to.equal(`${claims.map(dryRunLine).join('\n')}\n`);
    await expectAbsent(claims);
  });

  it('refuses a copy of the gateway Deployment with a misspelt field, naming the field', async () => {
    const deployment = structuredClone(deployObject('Deployment', 'paddock-gateway'));
    const container = deployment.spec.template.spec.containers[0];
    container.readinesProbe = container.readinessProbe;
    delete container.readinessProbe;
    const result = await admin.run(['apply', '--dry-run=server', '-f', '-'], JSON.stringify(deployment));
    expect(result.code).to.equal(1);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.equal(
      'Error from server (BadRequest): error when creating "STDIN": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].readinesProbe"\n',
    );
    await expectAbsent([deployment]);
  });

  it('refuses a copy of the gateway Deployment whose probe port is no valid port name, and of its PodDisruptionBudget with both kinds of budget', async () => {
    const deployment = structuredClone(deployObject('Deployment', 'paddock-gateway'));
    deployment.spec.template.spec.containers[0].readinessProbe.httpGet.port = 'https-of-the-gateway';
    const pdb = structuredClone(deployObject('PodDisruptionBudget', 'paddock-gateway'));
    pdb.spec.minAvailable = 2;
    const result = await admin.run(
      ['apply', '--dry-run=server', '-f', '-'],
      JSON.stringify({ kind: 'List', apiVersion: 'v1', items: [deployment, pdb] }),
    );
    expect(result.code).to.equal(1);
    expect(result.stderr).to.include(
      'Deployment.apps "paddock-gateway" is invalid: spec.template.spec.containers[0].readinessProbe.httpGet.port: Invalid value: "https-of-the-gateway": must be no more than 15 characters',
    );
    expect(result.stderr).to.match(
      /PodDisruptionBudget.policy "paddock-gateway" is invalid: spec: Invalid value: .*: minAvailable and maxUnavailable cannot be both set/,
    );
    await expectAbsent([deployment, pdb]);
  });
});

describe('deploy/: the manifests agree with each other and with `paddock serve`', () => {
  const gateway = () => deployObject('Deployment', 'paddock-gateway');
  const gatewayContainer = () => gateway().spec.template.spec.containers[0];
  /** The gateway's flags as `--name=value` pairs, in order. */
  const gatewayFlags = (): [string, string][] =>
    gatewayContainer().args.map((arg: string) => {
      const match = /^--([a-z-]+)=(.*)$/.exec(arg);
      if (!match) throw new Error(`gateway argument ${arg} is not --flag=value`);
      return [match[1], match[2]];
    });
  const workloads = () => deployObjects().filter(({ object }) => ['Deployment', 'StatefulSet'].includes(object.kind));

  it('runs `paddock serve` with flags it declares only, and the ones a replica behind a load balancer needs', () => {
    expect(gatewayContainer().command).to.deep.equal(['paddock', 'serve']);
    const flags = gatewayFlags();
    for (const [name] of flags) expect(Object.keys(SERVE.flags), `--${name}`).to.include(name);
    const names = flags.map(([name]) => name);
    for (const needed of ['listen', 'advertise-address', 'data-dir', 'etcd-endpoints', 'upstream'])
      expect(names, `--${needed}`).to.include(needed);
  });

  it('listens on its container port, probes it, and keeps its data directory in the emptyDir under a read-only root', () => {
    const container = gatewayContainer();
    const listen = Object.fromEntries(gatewayFlags())['listen'];
    const [port] = container.ports;
    expect(listen).to.equal(`0.0.0.0:${port.containerPort}`);
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe'])
      expect(container[probe].httpGet, probe).to.include({ port: port.name, scheme: 'HTTPS' });
    expect(container.livenessProbe.httpGet.path).to.equal('/livez');
    expect(container.readinessProbe.httpGet.path).to.equal('/readyz');
    expect(container.securityContext.readOnlyRootFilesystem).to.equal(true);
    const dataDir = Object.fromEntries(gatewayFlags())['data-dir'];
    const mount = container.volumeMounts.find((m: Json) => dataDir.startsWith(`${m.mountPath}/`));
    expect(mount, `a mount holding ${dataDir} (a directory of its own in it)`).to.not.equal(undefined);
    const volume = gateway().spec.template.spec.volumes.find((v: Json) => v.name === mount.name);
    expect(volume).to.have.property('emptyDir');
  });

  it('reads its files from the volumes it mounts: --ca-cert, --ca-key and every --upstream kubeconfig', () => {
    const container = gatewayContainer();
    const files = gatewayFlags()
      .filter(([name]) => ['ca-cert', 'ca-key', 'upstream'].includes(name))
      .map(([name, value]) => (name === 'upstream' ? value.slice(value.indexOf('=') + 1) : value));
    expect(files).to.have.length.greaterThan(2);
    for (const file of files)
      expect(
        container.volumeMounts.some((m: Json) => file.startsWith(`${m.mountPath}/`)),
        `${file} is under a mount`,
      ).to.equal(true);
  });

  it('points --etcd-endpoints at the etcd client Service, whose selector and port reach the etcd members', () => {
    const endpoints = Object.fromEntries(gatewayFlags())['etcd-endpoints'];
    const client = deployObject('Service', 'paddock-etcd-client');
    const url = new URL(endpoints);
    expect(url.hostname).to.equal(`${client.metadata.name}.${client.metadata.namespace}.svc`);
    expect(client.spec.ports.map((p: Json) => p.port)).to.include(Number(url.port));
    const sts = deployObject('StatefulSet', 'paddock-etcd');
    expect(
      labelSelectorFromObject({ matchLabels: client.spec.selector }).matches(sts.spec.template.metadata.labels),
    ).to.equal(true);
  });

  it("names every etcd member in --initial-cluster by the headless Service the StatefulSet's serviceName is", () => {
    const sts = deployObject('StatefulSet', 'paddock-etcd');
    const headless = deployObject('Service', sts.spec.serviceName);
    expect(headless.spec.clusterIP).to.equal('None');
    const command: string[] = sts.spec.template.spec.containers[0].command;
    const initialCluster = command
      .find((arg) => arg.startsWith('--initial-cluster='))!
      .split('=')
      .slice(1)
      .join('=');
    const domain = `${headless.metadata.name}.${headless.metadata.namespace}.svc`;
    expect(initialCluster.split(',')).to.deep.equal(
      Array.from(
        { length: sts.spec.replicas },
        (_, i) => `${sts.metadata.name}-${i}=http://${sts.metadata.name}-${i}.${domain}:2380`,
      ),
    );
    expect(sts.spec.podManagementPolicy, 'members start together, or the first never has a quorum').to.equal(
      'Parallel',
    );
  });

  it('selects, with every Service and PodDisruptionBudget, the pods of exactly one workload, and targets ports they have', () => {
    const selecting = deployObjects().filter(({ object }) => ['Service', 'PodDisruptionBudget'].includes(object.kind));
    expect(selecting).to.have.length.greaterThan(3);
    for (const { object } of selecting) {
      const selector = object.kind === 'Service' ? { matchLabels: object.spec.selector } : object.spec.selector;
      const selected = workloads().filter(({ object: w }) =>
        labelSelectorFromObject(selector).matches(w.spec.template.metadata.labels),
      );
      expect(
        selected.map(({ object: w }) => w.metadata.name),
        `${object.kind} ${object.metadata.name}`,
      ).to.have.length(1);
      const ports = selected[0].object.spec.template.spec.containers.flatMap((c: Json) => c.ports ?? []);
      for (const port of object.kind === 'Service' ? object.spec.ports : [])
        expect(
          ports.some((p: Json) => p.name === port.targetPort || p.containerPort === port.targetPort),
          `${object.metadata.name} port ${port.port} → ${port.targetPort}`,
        ).to.equal(true);
    }
  });

  it('binds the member ClusterRole to the ServiceAccount whose token the Secret holds', () => {
    const binding = deployObject('ClusterRoleBinding', 'paddock-gateway');
    const account = deployObject('ServiceAccount', 'paddock-gateway');
    const token = deployObject('Secret', 'paddock-gateway-token');
    expect(binding.roleRef).to.deep.equal({
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'ClusterRole',
      name: deployObject('ClusterRole', 'paddock-gateway').metadata.name,
    });
    expect(binding.subjects).to.deep.equal([
      { kind: 'ServiceAccount', name: account.metadata.name, namespace: account.metadata.namespace },
    ]);
    expect(token.type).to.equal('kubernetes.io/service-account-token');
    expect(token.metadata.annotations['kubernetes.io/service-account.name']).to.equal(account.metadata.name);
    expect(token.metadata.namespace).to.equal(account.metadata.namespace);
  });
});
