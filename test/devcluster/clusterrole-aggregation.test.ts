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
});
