import { expect } from 'chai';
import { eventually } from '../support/eventually.js';
import { Kubectl, type KubectlResult } from '../support/kubectl.js';
import { startTwoTenants, type TwoTenants } from '../support/two-tenants.js';

// `kubectl explain` and `--validate=strict` with the real kubectl, on the devcluster directly and
// through a tenant's kubeconfig: both read the OpenAPI v3 documents (docs/devcluster.md, "OpenAPI").

const A = 'oapiaa';
const B = 'oapibb';

function deployment(name: string, containers: object[]): string {
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers } },
    },
  });
}

/** A CronTab CRD whose descriptions and fields say whose it is. */
function cronTabCRD(owner: string, field: string, fieldDescription: string): string {
  return JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'crontabs.stable.example.com' },
    spec: {
      group: 'stable.example.com',
      scope: 'Namespaced',
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab' },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: `The CronTab of ${owner}.`,
              properties: {
                spec: {
                  type: 'object',
                  description: `What ${owner}'s CronTab runs.`,
                  properties: { [field]: { type: 'string', description: fieldDescription } },
                },
              },
            },
          },
        },
      ],
    },
  });
}

const output = (result: KubectlResult) => result.stdout + result.stderr;

/** What every client of the cluster can check about OpenAPI, run once directly and once through the gateway. */
function sharedChecks(client: () => Kubectl) {
  it('explain deployment.spec.template prints the fields with their descriptions', async () => {
    const text = await client().ok(['explain', 'deployment.spec.template']);
    expect(text).to.match(/^GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1\n/);
    expect(text).to.match(/FIELD: template <PodTemplateSpec>/);
    expect(text).to.include('Template describes the pods that will be created.');
    expect(text).to.match(/\n {2}metadata\t<ObjectMeta>\n {4}Standard object's metadata\./);
    expect(text).to.match(/\n {2}spec\t<PodSpec>\n {4}Specification of the desired behavior of the pod\./);
  });

  it('explain walks into a core kind and prints a list field with its type', async () => {
    const text = await client().ok(['explain', 'pods.spec.containers.ports']);
    expect(text).to.match(/FIELD: ports <\[\]ContainerPort>/);
    expect(text).to.match(/\n {2}containerPort\t<integer> -required-\n/);
  });

  it('apply --validate=strict refuses an unknown field with the server’s message and accepts a valid object', async () => {
    const bad = await client().run(
      ['apply', '--validate=strict', '-f', '-'],
      deployment('strict', [{ name: 'web', image: 'nginx', bogus: 1 }]),
    );
    expect(bad.code).to.equal(1);
    expect(bad.stderr).to.include(
      'Error from server (BadRequest): error when creating "STDIN": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].bogus"',
    );
    expect((await client().run(['get', 'deployment', 'strict'])).code).to.equal(1);
    expect(
      await client().ok(
        ['apply', '--validate=strict', '-f', '-'],
        deployment('strict', [{ name: 'web', image: 'nginx' }]),
      ),
    ).to.equal('deployment.apps/strict created\n');
  });

  it('apply merges containers by name, the merge key the schema gives', async () => {
    const two = [
      { name: 'web', image: 'nginx:1.26' },
      { name: 'sidecar', image: 'busybox:1.36' },
    ];
    await client().ok(['apply', '-f', '-'], deployment('merged', two));
    await client().ok(['apply', '-f', '-'], deployment('merged', [two[0], { ...two[1], image: 'busybox:1.37' }]));
    const images = await client().ok([
      'get',
      'deployment',
      'merged',
      '-o',
      'jsonpath={range .spec.template.spec.containers[*]}{.name}={.image} {end}',
    ]);
    expect(images).to.equal('web=nginx:1.26 sidecar=busybox:1.37 ');
  });

  it('create deployment --dry-run=server answers without creating', async () => {
    expect(
      await client().ok(['create', 'deployment', 'dry', '--image=nginx', '--dry-run=server', '-o', 'name']),
    ).to.equal('deployment.apps/dry\n');
    const get = await client().run(['get', 'deployment', 'dry']);
    expect(get.code).to.equal(1);
    expect(get.stderr).to.include('deployments.apps "dry" not found');
  });
}

describe('kubectl explain and --validate=strict, on the devcluster and through the gateway', function () {
  this.timeout(120_000);
  let stage: TwoTenants;
  let admin: Kubectl;
  let alice: Kubectl;
  let bob: Kubectl;

  before(async () => {
    stage = await startTwoTenants('openapi', [A, B]);
    [alice, bob] = stage.tenants.map((tenant) => tenant.kubectl) as [Kubectl, Kubectl];
    admin = await Kubectl.create(stage.upstream.kubeconfigPath);
  });
  after(async () => {
    await admin?.dispose();
    await stage?.stop();
  });

  describe('directly', () => {
    sharedChecks(() => admin);

    it('explain <custom resource> prints the CRD’s schema, and the new one once the CRD changes', async () => {
      await admin.ok(['apply', '-f', '-'], cronTabCRD('the cluster', 'cronSpec', 'When it runs, in cron format.'));
      await eventually(
        () => admin.run(['explain', 'crontabs.spec']),
        (result) => expect(output(result)).to.include('When it runs, in cron format.'),
      );
      const text = await admin.ok(['explain', 'crontab.spec']);
      expect(text).to.match(/^GROUP:\s+stable\.example\.com\nKIND:\s+CronTab\nVERSION:\s+v1\n/);
      expect(text).to.match(/\n {2}cronSpec\t<string>\n {4}When it runs, in cron format\.\n/);

      await admin.ok(['apply', '-f', '-'], cronTabCRD('the cluster', 'cronSpec', 'When it runs, every minute.'));
      await eventually(
        () => admin.run(['explain', 'crontabs.spec.cronSpec']),
        (result) => expect(output(result)).to.include('When it runs, every minute.'),
      );
    });
  });

  describe('through a tenant’s kubeconfig', () => {
    sharedChecks(() => alice);

    it('explain <tenant CR kind> shows the tenant’s own group and schema, never the other tenant’s', async () => {
      await alice.ok(['apply', '-f', '-'], cronTabCRD('alice', 'aliceSchedule', "Alice's schedule."));
      await bob.ok(['apply', '-f', '-'], cronTabCRD('bob', 'bobSecret', "Bob's secret."));
      for (const [kubectl, own, other] of [
        [alice, 'alice', 'bob'],
        [bob, 'bob', 'alice'],
      ] as const) {
        await eventually(
          () => kubectl.run(['explain', 'crontab.spec']),
          (result) => expect(output(result)).to.include(`What ${own}'s CronTab runs.`),
        );
        const text = await kubectl.ok(['explain', 'crontab', '--recursive']);
        expect(text).to.match(/^GROUP:\s+stable\.example\.com\nKIND:\s+CronTab\nVERSION:\s+v1\n/);
        expect(text).to.include(`The CronTab of ${own}.`);
        expect(text).to.include(`${own}${own === 'alice' ? 'Schedule' : 'Secret'}\t<string>`);
        for (const word of [other, A, B]) expect(text).to.not.include(word);
      }
    });

    it('the tenant’s OpenAPI index lists its own group, unprefixed, and no other tenant’s', async () => {
      const index = JSON.parse(await alice.ok(['get', '--raw', '/openapi/v3']));
      expect(Object.keys(index.paths)).to.include('apis/stable.example.com/v1');
      expect(JSON.stringify(index)).to.not.include(B);
      const doc = await alice.ok(['get', '--raw', '/openapi/v3/apis/stable.example.com/v1']);
      expect(JSON.parse(doc).components.schemas).to.have.property('com.example.stable.v1.CronTab');
      for (const word of [A, B, 'bob']) expect(doc).to.not.include(word);
    });
  });
});
