import { expect } from 'chai';
import { parseFieldSelector, SelectorParseError } from '../../apiserver/selectors/field-selector.js';
import {
  checkFieldSelectorSupported,
  selectableFields,
  supportedFieldLabels,
} from '../../apiserver/selectors/selectable-fields.js';

// Labels and messages from kube 1.32's field-label conversion functions (pkg/apis/*/v1/conversion.go,
// runtime.DefaultMetaV1FieldSelectorConversion, the CRD handler's converter); values from the
// registries' ToSelectableFields.

function refusal(group: string, resource: string, namespaced: boolean, selector: string): string {
  try {
    checkFieldSelectorSupported(group, resource, namespaced, parseFieldSelector(selector));
  } catch (err) {
    expect(err).to.be.instanceOf(SelectorParseError);
    return (err as Error).message;
  }
  throw new Error(`expected ${selector} to be refused for ${group}/${resource}`);
}

function accepts(group: string, resource: string, namespaced: boolean, selector: string): void {
  expect(() => checkFieldSelectorSupported(group, resource, namespaced, parseFieldSelector(selector))).not.to.throw();
}

function selects(
  group: string,
  resource: string,
  namespaced: boolean,
  selector: string,
  object: Record<string, any>,
): boolean {
  checkFieldSelectorSupported(group, resource, namespaced, parseFieldSelector(selector));
  return parseFieldSelector(selector).matches(selectableFields(group, resource, namespaced, object));
}

describe('selectable fields', () => {
  describe('pods', () => {
    const pod = {
      metadata: { name: 'web-0', namespace: 'shop' },
      spec: {
        nodeName: 'node-a',
        restartPolicy: 'Always',
        schedulerName: 'default-scheduler',
        serviceAccountName: 'web',
      },
      status: {
        phase: 'Running',
        podIP: '10.0.0.9',
        podIPs: [{ ip: '10.0.0.2' }, { ip: 'fd00::2' }],
        nominatedNodeName: 'node-b',
      },
    };

    it('supports the labels of the Pod conversion', () => {
      expect([...supportedFieldLabels('', 'pods', true)].sort()).to.deep.equal([
        'metadata.name',
        'metadata.namespace',
        'spec.host',
        'spec.hostNetwork',
        'spec.nodeName',
        'spec.restartPolicy',
        'spec.schedulerName',
        'spec.serviceAccountName',
        'status.nominatedNodeName',
        'status.phase',
        'status.podIP',
        'status.podIPs',
      ]);
    });

    it('formats values as the pod registry does', () => {
      expect(selectableFields('', 'pods', true, pod)).to.deep.equal({
        'metadata.name': 'web-0',
        'metadata.namespace': 'shop',
        'spec.nodeName': 'node-a',
        'spec.host': 'node-a',
        'spec.restartPolicy': 'Always',
        'spec.schedulerName': 'default-scheduler',
        'spec.serviceAccountName': 'web',
        'spec.hostNetwork': 'false',
        'status.phase': 'Running',
        'status.podIP': '10.0.0.2',
        'status.podIPs': '',
        'status.nominatedNodeName': 'node-b',
      });
    });

    it('reads hostNetwork as a bool and the pod IP from status.podIP when podIPs is absent', () => {
      const fields = selectableFields('', 'pods', true, {
        metadata: { name: 'p' },
        spec: { hostNetwork: true },
        status: { podIP: '10.1.1.1' },
      });
      expect(fields['spec.hostNetwork']).to.equal('true');
      expect(fields['status.podIP']).to.equal('10.1.1.1');
      expect(fields['spec.nodeName']).to.equal('');
      expect(fields['metadata.namespace']).to.equal('');
    });

    it('selects with the usual kubectl selectors', () => {
      expect(selects('', 'pods', true, 'spec.nodeName=node-a,status.phase!=Failed', pod)).to.equal(true);
      expect(selects('', 'pods', true, 'spec.host=node-a', pod)).to.equal(true);
      expect(selects('', 'pods', true, 'spec.nodeName=', pod)).to.equal(false);
      expect(selects('', 'pods', true, 'spec.hostNetwork=false,metadata.namespace=shop', pod)).to.equal(true);
      expect(selects('', 'pods', true, 'status.podIPs=10.0.0.2', pod)).to.equal(false);
    });

    it('refuses other labels, naming the first in term order', () => {
      expect(refusal('', 'pods', true, 'spec.containers=x')).to.equal('field label not supported: spec.containers');
      expect(refusal('', 'pods', true, 'zzz=1,status.phase=Running,aaa=1')).to.equal('field label not supported: aaa');
      expect(refusal('', 'pods', true, 'metadata.uid=1')).to.equal('field label not supported: metadata.uid');
    });
  });

  describe('core kinds with conversions of their own', () => {
    it('nodes: metadata.name and spec.unschedulable, no namespace', () => {
      expect([...supportedFieldLabels('', 'nodes', false)]).to.have.members(['metadata.name', 'spec.unschedulable']);
      expect(selectableFields('', 'nodes', false, { metadata: { name: 'n1' } })).to.deep.equal({
        'metadata.name': 'n1',
        'spec.unschedulable': 'false',
      });
      expect(
        selects('', 'nodes', false, 'spec.unschedulable=true', {
          metadata: { name: 'n1' },
          spec: { unschedulable: true },
        }),
      ).to.equal(true);
      expect(refusal('', 'nodes', false, 'metadata.namespace=')).to.equal(
        'field label not supported: metadata.namespace',
      );
    });

    it('namespaces: status.phase', () => {
      expect(
        selectableFields('', 'namespaces', false, { metadata: { name: 'ns' }, status: { phase: 'Terminating' } }),
      ).to.deep.equal({
        'metadata.name': 'ns',
        'status.phase': 'Terminating',
      });
      expect(refusal('', 'namespaces', false, 'metadata.namespace=x')).to.equal(
        'field label not supported: metadata.namespace',
      );
    });

    it('secrets: type', () => {
      const secret = { metadata: { name: 's', namespace: 'ns' }, type: 'kubernetes.io/tls' };
      expect(selects('', 'secrets', true, 'type=kubernetes.io/tls', secret)).to.equal(true);
      expect(selects('', 'secrets', true, 'type!=kubernetes.io/tls', secret)).to.equal(false);
      expect(refusal('', 'secrets', true, 'data.tls.crt=x')).to.equal('field label not supported: data.tls.crt');
    });

    it('replicationcontrollers: status.replicas, 0 when unset', () => {
      expect(
        selectableFields('', 'replicationcontrollers', true, { metadata: { name: 'rc', namespace: 'ns' } })[
          'status.replicas'
        ],
      ).to.equal('0');
      expect(
        selects('', 'replicationcontrollers', true, 'status.replicas=3', {
          metadata: { name: 'rc' },
          status: { replicas: 3 },
        }),
      ).to.equal(true);
    });

    it('services: spec.clusterIP and spec.type', () => {
      const service = { metadata: { name: 'svc', namespace: 'ns' }, spec: { clusterIP: 'None', type: 'ClusterIP' } };
      expect(selects('', 'services', true, 'spec.clusterIP=None,spec.type=ClusterIP', service)).to.equal(true);
      expect(refusal('', 'services', true, 'spec.ports=80')).to.equal('field label not supported: spec.ports');
    });

    it('events: the involved object, reason, reporter, source and type', () => {
      const event = {
        metadata: { name: 'e', namespace: 'ns' },
        involvedObject: {
          kind: 'Pod',
          namespace: 'ns',
          name: 'web-0',
          uid: 'u1',
          apiVersion: 'v1',
          resourceVersion: '7',
          fieldPath: 'spec.containers{web}',
        },
        reason: 'Started',
        reportingComponent: 'kubelet',
        source: { component: '' },
        type: 'Normal',
      };
      expect(selectableFields('', 'events', true, event)).to.deep.equal({
        'metadata.name': 'e',
        'metadata.namespace': 'ns',
        'involvedObject.kind': 'Pod',
        'involvedObject.namespace': 'ns',
        'involvedObject.name': 'web-0',
        'involvedObject.uid': 'u1',
        'involvedObject.apiVersion': 'v1',
        'involvedObject.resourceVersion': '7',
        'involvedObject.fieldPath': 'spec.containers{web}',
        reason: 'Started',
        reportingComponent: 'kubelet',
        // An event without a source component is selected by its reporting controller.
        source: 'kubelet',
        type: 'Normal',
      });
      expect(selectableFields('', 'events', true, { ...event, source: { component: 'scheduler' } }).source).to.equal(
        'scheduler',
      );
      expect(refusal('', 'events', true, 'regarding.kind=Pod')).to.equal('field label not supported: regarding.kind');
    });
  });

  describe('other groups', () => {
    it('events.k8s.io events select under their own field names', () => {
      const event = {
        metadata: { name: 'e', namespace: 'ns' },
        regarding: { kind: 'Pod', name: 'web-0' },
        reportingController: 'kubelet',
        reason: 'Started',
        type: 'Normal',
      };
      expect(
        selects(
          'events.k8s.io',
          'events',
          true,
          'regarding.kind=Pod,regarding.name=web-0,reportingController=kubelet,source=kubelet',
          event,
        ),
      ).to.equal(true);
      expect(selects('events.k8s.io', 'events', true, 'type=Warning', event)).to.equal(false);
      expect(refusal('events.k8s.io', 'events', true, 'involvedObject.kind=Pod')).to.equal(
        'field label not supported: involvedObject.kind',
      );
      expect(refusal('events.k8s.io', 'events', true, 'reportingComponent=kubelet')).to.equal(
        'field label not supported: reportingComponent',
      );
    });

    it('jobs: status.successful counts status.succeeded, with batch/v1 wording for refusals', () => {
      const job = { metadata: { name: 'j', namespace: 'ns' }, status: { succeeded: 2 } };
      expect(selectableFields('batch', 'jobs', true, job)['status.successful']).to.equal('2');
      expect(selects('batch', 'jobs', true, 'status.successful=2', job)).to.equal(true);
      expect(refusal('batch', 'jobs', true, 'status.succeeded=1')).to.equal(
        'field label "status.succeeded" not supported for batchv1.Job',
      );
    });

    it('certificatesigningrequests: spec.signerName, no namespace', () => {
      const csr = { metadata: { name: 'c' }, spec: { signerName: 'kubernetes.io/kubelet-serving' } };
      expect(
        selects(
          'certificates.k8s.io',
          'certificatesigningrequests',
          false,
          'spec.signerName=kubernetes.io/kubelet-serving',
          csr,
        ),
      ).to.equal(true);
      expect(refusal('certificates.k8s.io', 'certificatesigningrequests', false, 'metadata.namespace=')).to.equal(
        'field label not supported: metadata.namespace',
      );
    });

    it('resourceslices: spec.nodeName and spec.driver, with the v1beta1 kind in refusals', () => {
      accepts(
        'resource.k8s.io',
        'resourceslices',
        false,
        'spec.nodeName=n1,spec.driver=gpu.example.com,metadata.name=s',
      );
      expect(refusal('resource.k8s.io', 'resourceslices', false, 'spec.pool.name=p')).to.equal(
        'field label not supported for resource.k8s.io/v1beta1, Kind=ResourceSlice: spec.pool.name',
      );
    });
  });

  describe('built-in kinds without a conversion of their own', () => {
    it('accept only metadata.name and metadata.namespace, in the default conversion wording', () => {
      accepts('', 'configmaps', true, 'metadata.name=a,metadata.namespace=b');
      expect(refusal('', 'configmaps', true, 'data.x=1')).to.equal(
        '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"',
      );
    });

    it('refuse status.replicas on apps/v1 replicasets, whose registry lists it but whose conversion does not', () => {
      expect(supportedFieldLabels('apps', 'replicasets', true)).to.deep.equal(['metadata.name', 'metadata.namespace']);
      expect(refusal('apps', 'replicasets', true, 'status.replicas=0')).to.equal(
        '"status.replicas" is not a known field selector: only "metadata.name", "metadata.namespace"',
      );
    });

    it('accept metadata.namespace on cluster-scoped kinds, where it is always empty', () => {
      const role = { metadata: { name: 'admin' } };
      expect(selects('rbac.authorization.k8s.io', 'clusterroles', false, 'metadata.namespace=', role)).to.equal(true);
      expect(selects('rbac.authorization.k8s.io', 'clusterroles', false, 'metadata.namespace=default', role)).to.equal(
        false,
      );
      expect(selects('rbac.authorization.k8s.io', 'clusterroles', false, 'metadata.name=admin', role)).to.equal(true);
    });
  });

  describe('custom resources', () => {
    const widget = { metadata: { name: 'w1', namespace: 'ns' }, spec: { size: 'large' } };

    it('namespaced ones support metadata.name and metadata.namespace', () => {
      expect(supportedFieldLabels('example.com', 'widgets', true)).to.deep.equal([
        'metadata.name',
        'metadata.namespace',
      ]);
      expect(selects('example.com', 'widgets', true, 'metadata.namespace=ns,metadata.name!=w2', widget)).to.equal(true);
      expect(refusal('example.com', 'widgets', true, 'spec.size=large')).to.equal(
        'field label not supported: spec.size',
      );
    });

    it('cluster-scoped ones support metadata.name only', () => {
      expect(supportedFieldLabels('example.com', 'gadgets', false)).to.deep.equal(['metadata.name']);
      expect(selectableFields('example.com', 'gadgets', false, { metadata: { name: 'g' } })).to.deep.equal({
        'metadata.name': 'g',
      });
      expect(refusal('example.com', 'gadgets', false, 'metadata.namespace=')).to.equal(
        'field label not supported: metadata.namespace',
      );
    });
  });

  it('accepts an empty selector for any resource', () => {
    accepts('', 'nodes', false, '');
    accepts('example.com', 'gadgets', false, '');
  });
});
