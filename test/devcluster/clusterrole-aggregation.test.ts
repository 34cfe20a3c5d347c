import { expect } from 'chai';
import { aggregatedRules } from '../../apiserver/authorization/rbac-authorizer.js';
import { startDevCluster, type DevCluster } from '../../devcluster/devcluster.js';
import { ApiClient } from '../support/api-client.js';
import { makeTempDir } from '../support/temp-dir.js';
import { eventually } from '../support/eventually.js';

const CLUSTER_ROLES = '/apis/rbac.authorization.k8s.io/v1/clusterroles';

describe('devcluster: the clusterrole-aggregation controller fills the rules of aggregated ClusterRoles', function () {
  let cluster: DevCluster;
  let api: ApiClient;
  let remove: () => Promise<void>;

  before(async () => {
    const temp = await makeTempDir('aggregation');
    remove = temp.remove;
    cluster = await startDevCluster({ listen: '127.0.0.1:0', dataDir: temp.dir });
    api = await ApiClient.load(cluster.kubeconfigPath);
  });
  after(async () => {
    api?.close();
    await cluster?.stop();
    await remove?.();
  });

  const rulesOf = async (name: string) => (await api.request('GET', `${CLUSTER_ROLES}/${name}`)).body.rules;

  it('the bootstrap view role holds the rules of the aggregate-to-view roles, as kube-controller-manager leaves it', async () => {
    const all = (await api.request('GET', CLUSTER_ROLES)).body.items;
    const view = all.find((role: any) => role.metadata.name === 'view');
    expect(view.aggregationRule).to.be.an('object');
    await eventually(
      () => rulesOf('view'),
      (rules) => expect(rules).to.deep.equal(aggregatedRules(view, all)).and.to.have.length.above(0),
    );
  });

  it('kube\u2019s monitoring example: rules follow the labelled roles as they are made, changed and deleted', async () => {
    const label = { 'rbac.example.com/aggregate-to-monitoring': 'true' };
    const endpoints = {
      verbs: ['get', 'list', 'watch'],
      apiGroups: [''],
      resources: ['services', 'endpointslices', 'pods'],
    };
    const secrets = { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['metrics-token'] };
    expect(
      (
        await api.request('POST', CLUSTER_ROLES, {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: 'monitoring' },
          aggregationRule: { clusterRoleSelectors: [{ matchLabels: label }] },
        })
      ).status,
    ).to.equal(201);
    expect(
      (
        await api.request('POST', CLUSTER_ROLES, {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: 'monitoring-endpoints', labels: label },
          rules: [endpoints],
        })
      ).status,
    ).to.equal(201);
    expect(
      (
        await api.request('POST', CLUSTER_ROLES, {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: 'unrelated' },
          rules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
        })
      ).status,
    ).to.equal(201);
    await eventually(
      () => rulesOf('monitoring'),
      (rules) => expect(rules).to.deep.equal([endpoints]),
    );

    expect(
      (
        await api.request('POST', CLUSTER_ROLES, {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: 'monitoring-secrets', labels: label },
          rules: [secrets],
        })
      ).status,
    ).to.equal(201);
    await eventually(
      () => rulesOf('monitoring'),
      (rules) => expect(rules).to.deep.equal([endpoints, secrets]),
    );

    expect((await api.request('DELETE', `${CLUSTER_ROLES}/monitoring-endpoints`)).status).to.equal(200);
    await eventually(
      () => rulesOf('monitoring'),
      (rules) => expect(rules).to.deep.equal([secrets]),
    );
  });

  it('follows a role relabelled out of a selector, a selector changed, and an aggregated role aggregated in turn', async () => {
    const role = (name: string, extra: object) => ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name },
      ...extra,
    });
    const create = async (body: object) =>
      expect((await api.request('POST', CLUSTER_ROLES, body)).status).to.equal(201);
    const patch = async (name: string, body: object) =>
      expect(
        (
          await api.request('PATCH', `${CLUSTER_ROLES}/${name}`, body, {
            'Content-Type': 'application/merge-patch+json',
          })
        ).status,
      ).to.equal(200);
    const pods = { verbs: ['get'], apiGroups: [''], resources: ['pods'] };
    const nodes = { verbs: ['list'], apiGroups: [''], resources: ['nodes'] };
    await create(role('outer', { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { layer: 'inner' } }] } }));
    await create(
      role('inner', {
        metadata: { name: 'inner', labels: { layer: 'inner' } },
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { part: 'a' } }] },
      }),
    );
    await create(role('part-a', { metadata: { name: 'part-a', labels: { part: 'a' } }, rules: [pods] }));
    await create(role('part-b', { metadata: { name: 'part-b', labels: { part: 'b' } }, rules: [nodes] }));
    // inner aggregates part-a, and outer aggregates inner's aggregated rules.
    await eventually(
      () => rulesOf('outer'),
      (rules) => expect(rules).to.deep.equal([pods]),
    );

    // The aggregated role's selector changes: part-b's rules replace part-a's, in inner and outer.
    await patch('inner', { aggregationRule: { clusterRoleSelectors: [{ matchLabels: { part: 'b' } }] } });
    await eventually(
      () => Promise.all([rulesOf('inner'), rulesOf('outer')]),
      ([inner, outer]) => expect({ inner, outer }).to.deep.equal({ inner: [nodes], outer: [nodes] }),
    );

    // part-b relabelled out of the selector: its rules leave both.
    await patch('part-b', { metadata: { labels: { part: 'c' } } });
    await eventually(
      () => Promise.all([rulesOf('inner'), rulesOf('outer')]),
      ([inner, outer]) => expect({ inner, outer }).to.deep.equal({ inner: [], outer: [] }),
    );
  });
});
