import { expect } from 'chai';
import { buildTable } from '../../apiserver/table/build-table.js';
import { customResourcePrinter, type PrinterColumn } from '../../apiserver/table/printers/custom-resource.js';
import { printerFor, type Printer } from '../../apiserver/table/printers-by-resource.js';

const NOW = new Date('2026-11-29T12:06:11Z');
/** Five minutes before NOW, so every AGE cell below reads `5m`. */
const CREATED = '2026-11-29T12:01:11Z';
const ago = (ms: number): string => new Date(NOW.getTime() - ms).toISOString();
const MINUTE = 60_000;

const metadata = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  namespace: 'default',
  uid: `uid-${name}`,
  resourceVersion: '103',
  creationTimestamp: CREATED,
  ...extra,
});

const cells = (printer: Printer, object: unknown): unknown[] => printer.cells(object, NOW);

/** Column names, with `*` marking the wide-only (priority 1) ones. */
const header = (printer: Printer): string[] => printer.columns.map((c) => (c.priority > 0 ? `${c.name}*` : c.name));

describe('server-side Table printers', () => {
  describe('pods', () => {
    const pods = printerFor('', 'pods');
    const pod = (status: Record<string, unknown>, spec: Record<string, unknown> = {}, extraMeta = {}) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: metadata('p', extraMeta),
      spec: { containers: [{ name: 'main', image: 'nginx:1.27' }], ...spec },
      status,
    });
    const running = { running: { startedAt: CREATED } };
    /** READY, STATUS, RESTARTS. */
    const summary = (object: unknown) => cells(pods, object).slice(1, 4);

    it('has the columns of kube printPod, wide ones at priority 1', () => {
      expect(header(pods)).to.deep.equal([
        'Name',
        'Ready',
        'Status',
        'Restarts',
        'Age',
        'IP*',
        'Node*',
        'Nominated Node*',
        'Readiness Gates*',
      ]);
      expect(pods.columns[0]).to.include({ type: 'string', format: 'name' });
      expect(pods.columns[0].description).to.match(/^Name must be unique within a namespace\./);
    });

    it('prints a running pod like the recorded kubectl sample', () => {
      const object = pod(
        {
          phase: 'Running',
          podIP: '10.0.0.4',
          podIPs: [{ ip: '10.0.0.4' }],
          containerStatuses: [{ name: 'main', ready: true, restartCount: 0, state: running }],
        },
        { nodeName: 'node-1' },
      );
      expect(cells(pods, object)).to.deep.equal([
        'p',
        '1/1',
        'Running',
        '0',
        '5m',
        '10.0.0.4',
        'node-1',
        '<none>',
        '<none>',
      ]);
      expect(pods.conditions!(object)).to.equal(undefined);
    });

    it('shows <none> for a pending pod without IP or node, and the phase as status', () => {
      expect(cells(pods, pod({ phase: 'Pending' }))).to.deep.equal([
        'p',
        '0/1',
        'Pending',
        '0',
        '5m',
        '<none>',
        '<none>',
        '<none>',
        '<none>',
      ]);
    });

    it('shows CrashLoopBackOff with the restart count and how long ago the last restart ended', () => {
      const object = pod({
        phase: 'Running',
        containerStatuses: [
          {
            name: 'main',
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s' } },
            lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(130_000) } },
          },
        ],
      });
      expect(summary(object)).to.deep.equal(['0/1', 'CrashLoopBackOff', '3 (2m10s ago)']);
    });

    it('lets the first container win and sums restarts across containers', () => {
      const object = pod(
        {
          phase: 'Running',
          containerStatuses: [
            { name: 'a', ready: false, restartCount: 1, state: { terminated: { exitCode: 137, reason: 'OOMKilled' } } },
            { name: 'b', ready: false, restartCount: 2, state: { waiting: { reason: 'ImagePullBackOff' } } },
          ],
        },
        { containers: [{ name: 'a' }, { name: 'b' }] },
      );
      // No lastState anywhere, so no "(… ago)".
      expect(summary(object)).to.deep.equal(['0/2', 'OOMKilled', '3']);
    });

    it('shows Signal:N or ExitCode:N for a terminated container without a reason', () => {
      const terminated = (t: object) =>
        pod({ phase: 'Running', containerStatuses: [{ name: 'main', state: { terminated: t } }] });
      expect(summary(terminated({ exitCode: 2 }))[1]).to.equal('ExitCode:2');
      expect(summary(terminated({ exitCode: 143, signal: 15 }))[1]).to.equal('Signal:15');
    });

    it('shows Completed for a succeeded pod and marks the row completed', () => {
      const object = pod({
        phase: 'Succeeded',
        containerStatuses: [
          { name: 'main', ready: false, restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
        ],
      });
      expect(summary(object)).to.deep.equal(['0/1', 'Completed', '0']);
      expect(pods.conditions!(object)).to.deep.equal([
        { type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' },
      ]);
    });

    it('marks a failed pod completed with reason Failed', () => {
      expect(pods.conditions!(pod({ phase: 'Failed' }))).to.deep.equal([
        { type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' },
      ]);
    });

    it('turns Completed back into Running or NotReady while another container still runs', () => {
      const statuses = [
        { name: 'a', ready: true, state: running },
        { name: 'b', ready: false, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
      ];
      const spec = { containers: [{ name: 'a' }, { name: 'b' }] };
      const ready = pod(
        { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }], containerStatuses: statuses },
        spec,
      );
      const notReady = pod(
        { phase: 'Running', conditions: [{ type: 'Ready', status: 'False' }], containerStatuses: statuses },
        spec,
      );
      expect(summary(ready)).to.deep.equal(['1/2', 'Running', '0']);
      expect(summary(notReady)).to.deep.equal(['1/2', 'NotReady', '0']);
    });

    describe('init containers', () => {
      const initSpec = { initContainers: [{ name: 'init' }] };

      it('shows Init:0/1 while the first init container runs', () => {
        const object = pod(
          {
            phase: 'Pending',
            initContainerStatuses: [{ name: 'init', ready: false, restartCount: 0, state: running }],
            containerStatuses: [{ name: 'main', ready: false, state: { waiting: { reason: 'PodInitializing' } } }],
          },
          initSpec,
        );
        expect(summary(object)).to.deep.equal(['0/1', 'Init:0/1', '0']);
      });

      it('counts init containers already done, and ignores PodInitializing as a reason', () => {
        const object = pod(
          {
            phase: 'Pending',
            initContainerStatuses: [
              { name: 'first', state: { terminated: { exitCode: 0, reason: 'Completed' } } },
              { name: 'second', state: { waiting: { reason: 'PodInitializing' } } },
            ],
          },
          { initContainers: [{ name: 'first' }, { name: 'second' }] },
        );
        expect(summary(object)[1]).to.equal('Init:1/2');
      });

      it('shows the waiting reason of a crashing init container and counts its restarts', () => {
        const object = pod(
          {
            phase: 'Pending',
            initContainerStatuses: [
              {
                name: 'init',
                restartCount: 4,
                state: { waiting: { reason: 'CrashLoopBackOff' } },
                lastState: { terminated: { exitCode: 1, finishedAt: ago(5 * MINUTE) } },
              },
            ],
            containerStatuses: [{ name: 'main', restartCount: 9, state: { waiting: { reason: 'PodInitializing' } } }],
          },
          initSpec,
        );
        // The app container's restarts do not count while initializing.
        expect(summary(object)).to.deep.equal(['0/1', 'Init:CrashLoopBackOff', '4 (5m ago)']);
      });

      it('shows Init:ExitCode:N or the reason of a failed init container', () => {
        const failed = (terminated: object) =>
          pod({ phase: 'Pending', initContainerStatuses: [{ name: 'init', state: { terminated } }] }, initSpec);
        expect(summary(failed({ exitCode: 1 }))[1]).to.equal('Init:ExitCode:1');
        expect(summary(failed({ exitCode: 137, signal: 9 }))[1]).to.equal('Init:Signal:9');
        expect(summary(failed({ exitCode: 1, reason: 'Error' }))[1]).to.equal('Init:Error');
      });

      it('counts a started sidecar as a container and reports the app containers once initialized', () => {
        const object = pod(
          {
            phase: 'Running',
            conditions: [{ type: 'Initialized', status: 'True' }],
            initContainerStatuses: [{ name: 'proxy', started: true, ready: true, restartCount: 1, state: running }],
            containerStatuses: [{ name: 'main', ready: true, restartCount: 2, state: running }],
          },
          { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }] },
        );
        expect(summary(object)).to.deep.equal(['2/2', 'Running', '3']);
      });
    });

    it('shows Terminating once deleted, unless the pod already finished', () => {
      const deleted = { deletionTimestamp: ago(MINUTE) };
      const statuses = [{ name: 'main', ready: true, state: running }];
      expect(summary(pod({ phase: 'Running', containerStatuses: statuses }, {}, deleted))[1]).to.equal('Terminating');
      expect(summary(pod({ phase: 'Succeeded', reason: 'Done' }, {}, deleted))[1]).to.equal('Done');
      expect(summary(pod({ phase: 'Running', reason: 'NodeLost' }, {}, deleted))[1]).to.equal('Unknown');
    });

    it('shows SchedulingGated for a gated pod', () => {
      const object = pod({
        phase: 'Pending',
        conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }],
      });
      expect(summary(object)[1]).to.equal('SchedulingGated');
    });

    it('fills the wide cells: first pod IP, node, nominated node and passed readiness gates', () => {
      const object = pod(
        {
          phase: 'Running',
          podIPs: [{ ip: '10.0.0.9' }, { ip: 'fd00::9' }],
          nominatedNodeName: 'node-2',
          conditions: [
            { type: 'example.com/lb', status: 'True' },
            { type: 'example.com/dns', status: 'False' },
          ],
        },
        {
          nodeName: 'node-1',
          readinessGates: [{ conditionType: 'example.com/lb' }, { conditionType: 'example.com/dns' }],
        },
      );
      expect(cells(pods, object).slice(5)).to.deep.equal(['10.0.0.9', 'node-1', 'node-2', '1/2']);
    });
  });

  describe('core kinds', () => {
    it('namespaces: NAME STATUS AGE', () => {
      const ns = printerFor('', 'namespaces');
      expect(header(ns)).to.deep.equal(['Name', 'Status', 'Age']);
      expect(
        cells(ns, { metadata: { name: 'team-a', creationTimestamp: CREATED }, status: { phase: 'Terminating' } }),
      ).to.deep.equal(['team-a', 'Terminating', '5m']);
    });

    describe('services', () => {
      const services = printerFor('', 'services');
      const service = (spec: object, status: object = {}) => ({ metadata: metadata('web'), spec, status });

      it('has NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE, wide SELECTOR', () => {
        expect(header(services)).to.deep.equal([
          'Name',
          'Type',
          'Cluster-IP',
          'External-IP',
          'Port(s)',
          'Age',
          'Selector*',
        ]);
      });

      it('prints a ClusterIP service', () => {
        const object = service({
          type: 'ClusterIP',
          clusterIP: '10.96.0.10',
          clusterIPs: ['10.96.0.10'],
          ports: [
            { name: 'dns', port: 53, protocol: 'UDP' },
            { name: 'metrics', port: 9153 },
          ],
          selector: { 'k8s-app': 'kube-dns', app: 'dns' },
        });
        expect(cells(services, object)).to.deep.equal([
          'web',
          'ClusterIP',
          '10.96.0.10',
          '<none>',
          '53/UDP,9153/TCP',
          '5m',
          'app=dns,k8s-app=kube-dns',
        ]);
      });

      it('shows node ports and explicit external IPs', () => {
        const object = service({
          type: 'NodePort',
          clusterIPs: ['10.96.1.1'],
          externalIPs: ['192.0.2.1'],
          ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }],
        });
        expect(cells(services, object).slice(1, 5)).to.deep.equal([
          'NodePort',
          '10.96.1.1',
          '192.0.2.1',
          '80:30080/TCP',
        ]);
      });

      it('shows <pending> until a load balancer has ingress, then its sorted addresses', () => {
        const spec = {
          type: 'LoadBalancer',
          clusterIPs: ['10.96.1.2'],
          ports: [{ port: 443, nodePort: 31443, protocol: 'TCP' }],
        };
        expect(cells(services, service(spec))[3]).to.equal('<pending>');
        const ingress = [{ ip: '203.0.113.9' }, { hostname: 'lb.example.com' }, { ip: '203.0.113.2' }];
        expect(cells(services, service(spec, { loadBalancer: { ingress } }))[3]).to.equal(
          '203.0.113.2,203.0.113.9,lb.example.com',
        );
      });

      it('shows the external name, and None for a headless service without selector or ports', () => {
        expect(
          cells(services, service({ type: 'ExternalName', externalName: 'db.example.com' })).slice(1, 5),
        ).to.deep.equal(['ExternalName', '<none>', 'db.example.com', '<none>']);
        expect(cells(services, service({ type: 'ClusterIP', clusterIPs: ['None'] })).slice(2)).to.deep.equal([
          'None',
          '<none>',
          '<none>',
          '5m',
          '<none>',
        ]);
      });
    });

    it('configmaps count data and binaryData keys', () => {
      const cm = printerFor('', 'configmaps');
      expect(header(cm)).to.deep.equal(['Name', 'Data', 'Age']);
      expect(
        cells(cm, { metadata: metadata('settings'), data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }),
      ).to.deep.equal(['settings', 3, '5m']);
    });

    it('secrets: NAME TYPE DATA AGE', () => {
      const secrets = printerFor('', 'secrets');
      expect(header(secrets)).to.deep.equal(['Name', 'Type', 'Data', 'Age']);
      expect(
        cells(secrets, {
          metadata: metadata('tls'),
          type: 'kubernetes.io/tls',
          data: { 'tls.crt': 'x', 'tls.key': 'y' },
        }),
      ).to.deep.equal(['tls', 'kubernetes.io/tls', 2, '5m']);
      expect(cells(secrets, { metadata: metadata('empty') })).to.deep.equal(['empty', 'Opaque', 0, '5m']);
    });

    it('serviceaccounts: NAME SECRETS AGE', () => {
      const sa = printerFor('', 'serviceaccounts');
      expect(header(sa)).to.deep.equal(['Name', 'Secrets', 'Age']);
      expect(cells(sa, { metadata: metadata('default') })).to.deep.equal(['default', 0, '5m']);
      expect(cells(sa, { metadata: metadata('ci'), secrets: [{ name: 'ci-token' }] })[1]).to.equal(1);
    });

    describe('endpoints', () => {
      const endpoints = printerFor('', 'endpoints');

      it('lists ip:port pairs, bracketing IPv6', () => {
        const object = {
          metadata: metadata('web'),
          subsets: [{ addresses: [{ ip: '10.0.0.4' }, { ip: 'fd00::4' }], ports: [{ port: 8080, protocol: 'TCP' }] }],
        };
        expect(cells(endpoints, object)).to.deep.equal(['web', '10.0.0.4:8080,[fd00::4]:8080', '5m']);
      });

      it('shows three endpoints and how many more, bare IPs without ports, <none> without subsets', () => {
        const addresses = ['10.0.0.1', '10.0.0.2', '10.0.0.3'].map((ip) => ({ ip }));
        const object = {
          metadata: metadata('web'),
          subsets: [{ addresses, ports: [{ port: 80 }, { port: 443 }] }, { addresses: [{ ip: '10.0.1.1' }] }],
        };
        expect(cells(endpoints, object)[1]).to.equal('10.0.0.1:80,10.0.0.2:80,10.0.0.3:80 + 4 more...');
        expect(cells(endpoints, { metadata: metadata('headless'), subsets: [{ addresses }] })[1]).to.equal(
          '10.0.0.1,10.0.0.2,10.0.0.3',
        );
        expect(cells(endpoints, { metadata: metadata('idle') })[1]).to.equal('<none>');
      });
    });

    describe('nodes', () => {
      const nodes = printerFor('', 'nodes');
      const node = {
        metadata: {
          name: 'node-1',
          creationTimestamp: CREATED,
          labels: {
            'node-role.kubernetes.io/control-plane': '',
            'node-role.kubernetes.io/': '',
            'kubernetes.io/role': 'edge',
          },
        },
        spec: { unschedulable: true },
        status: {
          conditions: [
            { type: 'MemoryPressure', status: 'False' },
            { type: 'Ready', status: 'True' },
          ],
          addresses: [
            { type: 'Hostname', address: 'node-1' },
            { type: 'InternalIP', address: '172.18.0.2' },
          ],
          nodeInfo: {
            kubeletVersion: 'v1.32.0',
            osImage: 'Debian GNU/Linux 12 (bookworm)',
            containerRuntimeVersion: 'containerd://1.7.24',
          },
        },
      };

      it('has NAME STATUS ROLES AGE VERSION, wide addresses and node info', () => {
        expect(header(nodes)).to.deep.equal([
          'Name',
          'Status',
          'Roles',
          'Age',
          'Version',
          'Internal-IP*',
          'External-IP*',
          'OS-Image*',
          'Kernel-Version*',
          'Container-Runtime*',
        ]);
      });

      it('prints readiness, cordoning, sorted roles, and <none>/<unknown> for missing info', () => {
        expect(cells(nodes, node)).to.deep.equal([
          'node-1',
          'Ready,SchedulingDisabled',
          'control-plane,edge',
          '5m',
          'v1.32.0',
          '172.18.0.2',
          '<none>',
          'Debian GNU/Linux 12 (bookworm)',
          '<unknown>',
          'containerd://1.7.24',
        ]);
      });

      it('shows NotReady, or Unknown without a Ready condition, and <none> without roles', () => {
        const bare = {
          metadata: { name: 'n', creationTimestamp: CREATED },
          status: { conditions: [{ type: 'Ready', status: 'Unknown' }] },
        };
        expect(cells(nodes, bare).slice(1, 3)).to.deep.equal(['NotReady', '<none>']);
        expect(cells(nodes, { metadata: { name: 'n' } }).slice(1, 4)).to.deep.equal(['Unknown', '<none>', '<unknown>']);
      });
    });

    describe('events', () => {
      const events = printerFor('', 'events');

      it('has LAST SEEN TYPE REASON OBJECT MESSAGE and the wide columns, Name last', () => {
        expect(header(events)).to.deep.equal([
          'Last Seen',
          'Type',
          'Reason',
          'Object',
          'Subobject*',
          'Source*',
          'Message',
          'First Seen*',
          'Count*',
          'Name*',
        ]);
        expect(events.columns[9].format).to.equal('name');
      });

      it('prints a core/v1 event', () => {
        const event = {
          metadata: metadata('web-1.17f'),
          involvedObject: { kind: 'Pod', name: 'web-1', fieldPath: 'spec.containers{main}' },
          reason: 'Pulled',
          message: 'Successfully pulled image "nginx:1.27"\n',
          source: { component: 'kubelet', host: 'node-1' },
          firstTimestamp: ago(10 * MINUTE),
          lastTimestamp: ago(3 * MINUTE),
          count: 4,
          type: 'Normal',
        };
        expect(cells(printerFor('', 'events'), event)).to.deep.equal([
          '3m',
          'Normal',
          'Pulled',
          'pod/web-1',
          'spec.containers{main}',
          'kubelet, node-1',
          'Successfully pulled image "nginx:1.27"',
          '10m',
          4,
          'web-1.17f',
        ]);
      });

      it('prints an events.k8s.io/v1 event through its core/v1 equivalents', () => {
        const event = {
          metadata: metadata('web.18a'),
          eventTime: ago(2 * MINUTE),
          reportingController: 'default-scheduler',
          regarding: { kind: 'Pod', name: 'web' },
          reason: 'Scheduled',
          note: 'Successfully assigned default/web to node-1',
          type: 'Normal',
        };
        expect(cells(printerFor('events.k8s.io', 'events'), event)).to.deep.equal([
          '2m',
          'Normal',
          'Scheduled',
          'pod/web',
          '',
          'default-scheduler',
          'Successfully assigned default/web to node-1',
          '2m',
          1,
          'web.18a',
        ]);
      });

      it('takes last seen and count from a series', () => {
        const event = {
          metadata: metadata('e'),
          involvedObject: { kind: 'Node' },
          eventTime: ago(60 * MINUTE),
          series: { count: 7, lastObservedTime: ago(MINUTE) },
        };
        const row = cells(events, event);
        expect([row[0], row[3], row[7], row[8]]).to.deep.equal(['60s', 'node', '60m', 7]);
      });
    });

    describe('persistent volumes and claims', () => {
      it('persistentvolumes: claim, class from the beta annotation, Terminating, defaults', () => {
        const pv = printerFor('', 'persistentvolumes');
        expect(header(pv)).to.deep.equal([
          'Name',
          'Capacity',
          'Access Modes',
          'Reclaim Policy',
          'Status',
          'Claim',
          'StorageClass',
          'VolumeAttributesClass',
          'Reason',
          'Age',
          'VolumeMode*',
        ]);
        const object = {
          metadata: {
            name: 'pv-1',
            creationTimestamp: CREATED,
            annotations: { 'volume.beta.kubernetes.io/storage-class': 'legacy' },
          },
          spec: {
            capacity: { storage: '10Gi' },
            accessModes: ['ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOnce'],
            persistentVolumeReclaimPolicy: 'Delete',
            claimRef: { namespace: 'default', name: 'data' },
            storageClassName: 'standard',
            volumeMode: 'Block',
          },
          status: { phase: 'Bound' },
        };
        expect(cells(pv, object)).to.deep.equal([
          'pv-1',
          '10Gi',
          'RWO,RWX',
          'Delete',
          'Bound',
          'default/data',
          'legacy',
          '<unset>',
          '',
          '5m',
          'Block',
        ]);
        expect(cells(pv, { metadata: { name: 'bare', deletionTimestamp: CREATED } })).to.deep.equal([
          'bare',
          '0',
          '',
          'Retain',
          'Terminating',
          '',
          '',
          '<unset>',
          '',
          '<unknown>',
          'Filesystem',
        ]);
      });

      it('persistentvolumeclaims: capacity and access modes only once bound', () => {
        const pvc = printerFor('', 'persistentvolumeclaims');
        expect(header(pvc)).to.deep.equal([
          'Name',
          'Status',
          'Volume',
          'Capacity',
          'Access Modes',
          'StorageClass',
          'VolumeAttributesClass',
          'Age',
          'VolumeMode*',
        ]);
        const spec = {
          accessModes: ['ReadWriteOnce'],
          resources: { requests: { storage: '1Gi' } },
          storageClassName: 'standard',
        };
        const pending = { metadata: metadata('data'), spec, status: { phase: 'Pending' } };
        expect(cells(pvc, pending)).to.deep.equal([
          'data',
          'Pending',
          '',
          '',
          '',
          'standard',
          '<unset>',
          '5m',
          'Filesystem',
        ]);
        const bound = {
          metadata: metadata('data'),
          spec: { ...spec, volumeName: 'pv-1', volumeAttributesClassName: 'gold' },
          status: { phase: 'Bound', capacity: { storage: '2Gi' }, accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'] },
        };
        expect(cells(pvc, bound)).to.deep.equal([
          'data',
          'Bound',
          'pv-1',
          '2Gi',
          'RWO,RWOP',
          'standard',
          'gold',
          '5m',
          'Filesystem',
        ]);
      });
    });
  });

  describe('apps', () => {
    const template = {
      spec: {
        containers: [
          { name: 'web', image: 'nginx:1.27' },
          { name: 'log', image: 'busybox' },
        ],
      },
    };

    it('deployments: NAME READY UP-TO-DATE AVAILABLE AGE, wide CONTAINERS IMAGES SELECTOR', () => {
      const deployments = printerFor('apps', 'deployments');
      expect(header(deployments)).to.deep.equal([
        'Name',
        'Ready',
        'Up-to-date',
        'Available',
        'Age',
        'Containers*',
        'Images*',
        'Selector*',
      ]);
      const object = {
        metadata: metadata('web'),
        spec: {
          replicas: 3,
          selector: {
            matchLabels: { app: 'web' },
            matchExpressions: [
              { key: 'tier', operator: 'In', values: ['frontend', 'edge'] },
              { key: 'canary', operator: 'DoesNotExist' },
            ],
          },
          template,
        },
        status: { replicas: 3, readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 },
      };
      expect(cells(deployments, object)).to.deep.equal([
        'web',
        '2/3',
        3,
        2,
        '5m',
        'web,log',
        'nginx:1.27,busybox',
        'app=web,!canary,tier in (edge,frontend)',
      ]);
    });

    it('deployments default to one replica and show an empty or invalid selector as kube does', () => {
      const deployments = printerFor('apps', 'deployments');
      expect(cells(deployments, { metadata: metadata('web'), spec: { selector: {} } })).to.deep.equal([
        'web',
        '0/1',
        0,
        0,
        '5m',
        '',
        '',
        '',
      ]);
      const invalid = {
        metadata: metadata('web'),
        spec: { selector: { matchExpressions: [{ key: 'a', operator: 'Near' }] } },
      };
      expect(cells(deployments, invalid)[7]).to.equal('<invalid>');
    });

    it('replicasets: NAME DESIRED CURRENT READY AGE, wide CONTAINERS IMAGES SELECTOR', () => {
      const rs = printerFor('apps', 'replicasets');
      expect(header(rs)).to.deep.equal([
        'Name',
        'Desired',
        'Current',
        'Ready',
        'Age',
        'Containers*',
        'Images*',
        'Selector*',
      ]);
      const object = {
        metadata: metadata('web-5d8'),
        spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template },
        status: { replicas: 2 },
      };
      expect(cells(rs, object)).to.deep.equal(['web-5d8', 2, 2, 0, '5m', 'web,log', 'nginx:1.27,busybox', 'app=web']);
      expect(cells(rs, { metadata: metadata('x'), spec: {} })[7]).to.equal('<none>');
    });

    it('statefulsets: NAME READY AGE, wide CONTAINERS IMAGES', () => {
      const sts = printerFor('apps', 'statefulsets');
      expect(header(sts)).to.deep.equal(['Name', 'Ready', 'Age', 'Containers*', 'Images*']);
      expect(
        cells(sts, { metadata: metadata('db'), spec: { replicas: 3, template }, status: { readyReplicas: 1 } }),
      ).to.deep.equal(['db', '1/3', '5m', 'web,log', 'nginx:1.27,busybox']);
    });

    it('daemonsets: counts, node selector, wide CONTAINERS IMAGES SELECTOR', () => {
      const ds = printerFor('apps', 'daemonsets');
      expect(header(ds)).to.deep.equal([
        'Name',
        'Desired',
        'Current',
        'Ready',
        'Up-to-date',
        'Available',
        'Node Selector',
        'Age',
        'Containers*',
        'Images*',
        'Selector*',
      ]);
      const object = {
        metadata: metadata('agent'),
        spec: {
          selector: { matchLabels: { app: 'agent' } },
          template: { spec: { ...template.spec, nodeSelector: { 'kubernetes.io/os': 'linux' } } },
        },
        status: {
          desiredNumberScheduled: 3,
          currentNumberScheduled: 3,
          numberReady: 2,
          updatedNumberScheduled: 3,
          numberAvailable: 2,
        },
      };
      expect(cells(ds, object)).to.deep.equal([
        'agent',
        3,
        3,
        2,
        3,
        2,
        'kubernetes.io/os=linux',
        '5m',
        'web,log',
        'nginx:1.27,busybox',
        'app=agent',
      ]);
      expect(cells(ds, { metadata: metadata('x'), spec: {} })[6]).to.equal('<none>');
    });
  });

  describe('autoscaling', () => {
    const hpas = printerFor('autoscaling', 'horizontalpodautoscalers');
    const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };
    const resource = (name: string, target: Record<string, unknown>) => ({
      type: 'Resource',
      resource: { name, target },
    });
    const hpa = (spec: Record<string, unknown>, status: Record<string, unknown> = {}) => ({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: metadata('web'),
      spec: { scaleTargetRef: ref, maxReplicas: 5, ...spec },
      status,
    });

    it('has NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE', () => {
      expect(header(hpas)).to.deep.equal(['Name', 'Reference', 'Targets', 'MinPods', 'MaxPods', 'Replicas', 'Age']);
    });

    it('prints each metric as current/target, <unknown> until reported, and at most two of them', () => {
      const cpu = resource('cpu', { type: 'Utilization', averageUtilization: 80 });
      expect(cells(hpas, hpa({ minReplicas: 2, metrics: [cpu] }, { currentReplicas: 3 }))).to.deep.equal([
        'web',
        'Deployment/web',
        'cpu: <unknown>/80%',
        '2',
        5,
        3,
        '5m',
      ]);
      const metrics = [
        cpu,
        resource('memory', { type: 'AverageValue', averageValue: '1Gi' }),
        { type: 'Pods', pods: { metric: { name: 'rps' }, target: { type: 'AverageValue', averageValue: '10' } } },
        {
          type: 'External',
          external: { metric: { name: 'queue' }, target: { type: 'AverageValue', averageValue: '30' } },
        },
      ];
      const current = [
        { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 55, averageValue: '100m' } } },
        { type: 'Resource', resource: { name: 'memory', current: { averageValue: '700Mi' } } },
      ];
      expect(cells(hpas, hpa({ metrics }, { currentMetrics: current }))[2]).to.equal(
        'cpu: 55%/80%, memory: 700Mi/1Gi + 2 more...',
      );
      expect(cells(hpas, hpa({ metrics: metrics.slice(2) }))[2]).to.equal('<unknown>/10, <unknown>/30 (avg)');
      expect(cells(hpas, hpa({}))[2]).to.equal('<none>');
      expect(cells(hpas, hpa({ minReplicas: undefined }))[3]).to.equal('<unset>');
    });

    it('prints an autoscaling/v1 object as its v2 form, metrics from the annotations included', () => {
      const v1 = {
        apiVersion: 'autoscaling/v1',
        kind: 'HorizontalPodAutoscaler',
        metadata: metadata('web', {
          annotations: {
            'autoscaling.alpha.kubernetes.io/metrics':
              '[{"type":"Pods","pods":{"metricName":"rps","targetAverageValue":"10"}}]',
          },
        }),
        spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 4, targetCPUUtilizationPercentage: 70 },
        status: { currentReplicas: 2, desiredReplicas: 2, currentCPUUtilizationPercentage: 35 },
      };
      expect(cells(hpas, v1)).to.deep.equal([
        'web',
        'Deployment/web',
        '<unknown>/10, cpu: <unknown>/70%',
        '1',
        4,
        2,
        '5m',
      ]);
    });
  });

  describe('batch', () => {
    const jobs = printerFor('batch', 'jobs');
    const jobTemplate = { spec: { containers: [{ name: 'pi', image: 'perl:5.34' }] } };

    it('jobs: NAME STATUS COMPLETIONS DURATION AGE, wide CONTAINERS IMAGES SELECTOR', () => {
      expect(header(jobs)).to.deep.equal([
        'Name',
        'Status',
        'Completions',
        'Duration',
        'Age',
        'Containers*',
        'Images*',
        'Selector*',
      ]);
      const complete = {
        metadata: metadata('pi'),
        spec: {
          completions: 1,
          parallelism: 1,
          selector: { matchLabels: { 'batch.kubernetes.io/controller-uid': 'u1' } },
          template: jobTemplate,
        },
        status: {
          succeeded: 1,
          startTime: ago(4 * MINUTE),
          completionTime: ago(4 * MINUTE - 8000),
          conditions: [
            { type: 'SuccessCriteriaMet', status: 'True' },
            { type: 'Complete', status: 'True' },
          ],
        },
      };
      expect(cells(jobs, complete)).to.deep.equal([
        'pi',
        'Complete',
        '1/1',
        '8s',
        '5m',
        'pi',
        'perl:5.34',
        'batch.kubernetes.io/controller-uid=u1',
      ]);
    });

    it('jobs: running duration counts to now, work queues show their parallelism', () => {
      const running = {
        metadata: metadata('queue'),
        spec: { parallelism: 3, template: jobTemplate },
        status: { active: 3, startTime: ago(90_000) },
      };
      expect(cells(jobs, running).slice(1, 4)).to.deep.equal(['Running', '0/1 of 3', '90s']);
      const unstarted = { metadata: metadata('later'), spec: { template: jobTemplate } };
      expect(cells(jobs, unstarted).slice(1, 4)).to.deep.equal(['Running', '0/1', '']);
    });

    it('jobs: Failed beats Terminating, which beats Suspended', () => {
      const status = (conditions: object[], extraMeta = {}) =>
        cells(jobs, { metadata: metadata('j', extraMeta), spec: {}, status: { conditions } })[1];
      expect(status([{ type: 'Failed', status: 'True' }], { deletionTimestamp: CREATED })).to.equal('Failed');
      expect(status([{ type: 'Suspended', status: 'True' }], { deletionTimestamp: CREATED })).to.equal('Terminating');
      expect(status([{ type: 'Suspended', status: 'True' }])).to.equal('Suspended');
      expect(status([{ type: 'FailureTarget', status: 'True' }])).to.equal('FailureTarget');
      expect(status([{ type: 'Complete', status: 'False' }])).to.equal('Running');
    });

    it('cronjobs: NAME SCHEDULE TIMEZONE SUSPEND ACTIVE LAST SCHEDULE AGE, wide from the job template', () => {
      const cronJobs = printerFor('batch', 'cronjobs');
      expect(header(cronJobs)).to.deep.equal([
        'Name',
        'Schedule',
        'Timezone',
        'Suspend',
        'Active',
        'Last Schedule',
        'Age',
        'Containers*',
        'Images*',
        'Selector*',
      ]);
      const object = {
        metadata: metadata('nightly'),
        spec: {
          schedule: '0 3 * * *',
          timeZone: 'Europe/Paris',
          suspend: true,
          jobTemplate: { spec: { template: jobTemplate } },
        },
        status: { active: [{ name: 'nightly-1' }], lastScheduleTime: ago(2 * MINUTE) },
      };
      expect(cells(cronJobs, object)).to.deep.equal([
        'nightly',
        '0 3 * * *',
        'Europe/Paris',
        'True',
        1,
        '2m',
        '5m',
        'pi',
        'perl:5.34',
        '<none>',
      ]);
      const fresh = {
        metadata: metadata('fresh'),
        spec: { schedule: '@hourly', jobTemplate: { spec: { template: jobTemplate } } },
      };
      expect(cells(cronJobs, fresh).slice(1, 6)).to.deep.equal(['@hourly', '<none>', 'False', 0, '<none>']);
    });
  });

  describe('other groups', () => {
    it('leases: NAME HOLDER AGE', () => {
      const leases = printerFor('coordination.k8s.io', 'leases');
      expect(header(leases)).to.deep.equal(['Name', 'Holder', 'Age']);
      expect(cells(leases, { metadata: metadata('node-1'), spec: { holderIdentity: 'node-1' } })).to.deep.equal([
        'node-1',
        'node-1',
        '5m',
      ]);
    });

    describe('ingresses', () => {
      const ingresses = printerFor('networking.k8s.io', 'ingresses');
      const ingress = (spec: object, status: object = {}) => ({ metadata: metadata('web'), spec, status });

      it('has NAME CLASS HOSTS ADDRESS PORTS AGE and prints TLS ports and the balancer address', () => {
        expect(header(ingresses)).to.deep.equal(['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age']);
        const object = ingress(
          {
            ingressClassName: 'nginx',
            rules: [{ host: 'a.example.com' }, { host: 'b.example.com' }],
            tls: [{ hosts: ['a.example.com'] }],
          },
          { loadBalancer: { ingress: [{ ip: '172.18.0.5' }] } },
        );
        expect(cells(ingresses, object)).to.deep.equal([
          'web',
          'nginx',
          'a.example.com,b.example.com',
          '172.18.0.5',
          '80, 443',
          '5m',
        ]);
      });

      it('shows * without hosts, <none> without a class, and counts every rule past the third', () => {
        expect(cells(ingresses, ingress({ rules: [{}] })).slice(1, 5)).to.deep.equal(['<none>', '*', '', '80']);
        const rules = [{}, { host: 'a' }, { host: 'b' }, { host: 'c' }, { host: 'd' }];
        expect(cells(ingresses, ingress({ rules }))[2]).to.equal('a,b,c + 2 more...');
        expect(cells(ingresses, ingress({ rules: [...rules.slice(1, 4), {}] }))[2]).to.equal('a,b,c + 1 more...');
        expect(cells(ingresses, ingress({ rules: rules.slice(0, 4) }))[2]).to.equal('a,b,c');
      });
    });

    it('storageclasses: marks the default class and fills the API defaults', () => {
      const classes = printerFor('storage.k8s.io', 'storageclasses');
      expect(header(classes)).to.deep.equal([
        'Name',
        'Provisioner',
        'ReclaimPolicy',
        'VolumeBindingMode',
        'AllowVolumeExpansion',
        'Age',
      ]);
      const standard = {
        metadata: {
          name: 'standard',
          creationTimestamp: CREATED,
          annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' },
        },
        provisioner: 'rancher.io/local-path',
        reclaimPolicy: 'Retain',
        volumeBindingMode: 'WaitForFirstConsumer',
        allowVolumeExpansion: true,
      };
      expect(cells(classes, standard)).to.deep.equal([
        'standard (default)',
        'rancher.io/local-path',
        'Retain',
        'WaitForFirstConsumer',
        true,
        '5m',
      ]);
      const plain = {
        metadata: {
          name: 'fast',
          creationTimestamp: CREATED,
          annotations: { 'storageclass.kubernetes.io/is-default-class': 'false' },
        },
        provisioner: 'csi.example.com',
      };
      expect(cells(classes, plain)).to.deep.equal(['fast', 'csi.example.com', 'Delete', 'Immediate', false, '5m']);
    });

    it('rolebindings and clusterrolebindings: ROLE, wide subjects by kind', () => {
      const bindings = printerFor('rbac.authorization.k8s.io', 'rolebindings');
      expect(header(bindings)).to.deep.equal(['Name', 'Role', 'Age', 'Users*', 'Groups*', 'ServiceAccounts*']);
      const object = {
        metadata: metadata('readers'),
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
        subjects: [
          { kind: 'User', name: 'alice' },
          { kind: 'ServiceAccount', name: 'ci', namespace: 'tools' },
          { kind: 'User', name: 'bob' },
          { kind: 'Group', name: 'devs' },
        ],
      };
      expect(cells(bindings, object)).to.deep.equal([
        'readers',
        'ClusterRole/view',
        '5m',
        'alice, bob',
        'devs',
        'tools/ci',
      ]);
      const cluster = printerFor('rbac.authorization.k8s.io', 'clusterrolebindings');
      expect(cluster.columns[3].description).to.equal('Users in the clusterRoleBinding');
      expect(
        cells(cluster, {
          metadata: { name: 'admins', creationTimestamp: CREATED },
          roleRef: { kind: 'ClusterRole', name: 'admin' },
        }),
      ).to.deep.equal(['admins', 'ClusterRole/admin', '5m', '', '', '']);
    });
  });

  describe('the generic printer', () => {
    it('serves roles, clusterroles, CRDs and unknown resources with NAME and CREATED AT', () => {
      const generic = printerFor('rbac.authorization.k8s.io', 'roles');
      for (const [group, resource] of [
        ['rbac.authorization.k8s.io', 'clusterroles'],
        ['apiextensions.k8s.io', 'customresourcedefinitions'],
        ['', 'limitranges'],
        ['apps', 'pods'],
      ]) {
        expect(printerFor(group, resource), `${group}/${resource}`).to.equal(generic);
      }
      expect(generic.columns.map((c) => [c.name, c.type, c.format])).to.deep.equal([
        ['Name', 'string', 'name'],
        ['Created At', 'date', ''],
      ]);
    });

    it('prints the creation time in RFC 3339, UTC, whole seconds, and the zero time when missing', () => {
      const generic = printerFor('apiextensions.k8s.io', 'customresourcedefinitions');
      expect(
        cells(generic, {
          metadata: { name: 'widgets.example.com', creationTimestamp: '2026-11-29T13:01:11.734+01:00' },
        }),
      ).to.deep.equal(['widgets.example.com', '2026-11-29T12:01:11Z']);
      expect(cells(generic, { metadata: { name: 'x' } })).to.deep.equal(['x', '0001-01-01T00:00:00Z']);
    });
  });

  describe('custom resources', () => {
    const columns: PrinterColumn[] = [
      { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas', description: 'Desired replicas' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'First Port', type: 'string', jsonPath: '.spec.ports[*].name', priority: 1 },
      { name: 'Second Port', type: 'integer', jsonPath: ".spec.ports[1]['port']" },
      { name: 'Ratio', type: 'number', jsonPath: '.status.ratio' },
      { name: 'Paused', type: 'boolean', jsonPath: '.spec.paused' },
      { name: 'Synced', type: 'date', jsonPath: '.status.lastSync', format: 'date-time' },
      { name: 'Labels', type: 'string', jsonPath: '.metadata.labels' },
    ];
    const widgets = customResourcePrinter(columns);
    const widget = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: metadata('w1', { labels: { tier: 'b<1>', app: 'w' } }),
      spec: {
        replicas: 2.9,
        paused: false,
        ports: [
          { name: 'http', port: 80 },
          { name: 'grpc', port: 9090 },
        ],
      },
      status: {
        ratio: 0.5,
        lastSync: ago(3 * 60 * MINUTE + 4 * MINUTE),
        conditions: [
          { type: 'Synced', status: 'True' },
          { type: 'Ready', status: 'False' },
        ],
      },
    };

    it('puts NAME first, then the declared columns with their type, format, priority and description', () => {
      expect(widgets.columns[0]).to.include({ name: 'Name', format: 'name' });
      expect(widgets.columns.slice(1, 4)).to.deep.equal([
        { name: 'Replicas', type: 'integer', format: '', description: 'Desired replicas', priority: 0 },
        {
          name: 'Ready',
          type: 'string',
          format: '',
          description:
            'Custom resource definition column (in JSONPath format): .status.conditions[?(@.type=="Ready")].status',
          priority: 0,
        },
        {
          name: 'First Port',
          type: 'string',
          format: '',
          description: 'Custom resource definition column (in JSONPath format): .spec.ports[*].name',
          priority: 1,
        },
      ]);
      expect(widgets.columns[7]).to.include({ type: 'date', format: 'date-time' });
    });

    it('evaluates each JSONPath and converts the first match to the column type', () => {
      expect(cells(widgets, widget)).to.deep.equal([
        'w1',
        2,
        'False',
        'http',
        9090,
        0.5,
        false,
        '3h4m',
        '{"app":"w","tier":"b\\u003c1\\u003e"}',
      ]);
    });

    it('gives null for missing values and values of the wrong JSON type, <invalid> for a bad date', () => {
      const odd = {
        metadata: metadata('w2'),
        spec: { replicas: '2', paused: 'no', ports: [] },
        status: { ratio: null, lastSync: 'yesterday', conditions: [{ type: 'Synced', status: 'True' }] },
      };
      expect(cells(widgets, odd)).to.deep.equal(['w2', null, null, null, null, null, null, '<invalid>', null]);
    });

    it('prints numbers in string columns as Go does', () => {
      const printer = customResourcePrinter([{ name: 'Value', type: 'string', jsonPath: '.v' }]);
      const text = (v: unknown) => cells(printer, { metadata: metadata('x'), v })[1];
      expect([text(42), text(1.5), text(0.00001), text(1234567.5), text(true)]).to.deep.equal([
        '42',
        '1.5',
        '1e-05',
        '1.2345675e+06',
        'true',
      ]);
    });

    it('adds kube’s Age column when the CRD declares none', () => {
      for (const printer of [customResourcePrinter(undefined), customResourcePrinter([])]) {
        expect(printer.columns.map((c) => [c.name, c.type])).to.deep.equal([
          ['Name', 'string'],
          ['Age', 'date'],
        ]);
        expect(printer.columns[1].description).to.match(/^CreationTimestamp is a timestamp/);
        expect(cells(printer, widget)).to.deep.equal(['w1', '5m']);
      }
    });

    it('shows <unknown> for an empty date and null for an unsupported path', () => {
      const printer = customResourcePrinter([
        { name: 'When', type: 'date', jsonPath: '.when' },
        { name: 'Deep', type: 'string', jsonPath: '..name' },
      ]);
      expect(cells(printer, { metadata: metadata('x'), when: '' })).to.deep.equal(['x', '<unknown>', null]);
    });
  });

  describe('buildTable', () => {
    const pods = printerFor('', 'pods');
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: metadata('p', { labels: { app: 'x' } }),
      spec: { containers: [{ name: 'main', image: 'nginx:1.27' }], nodeName: 'node-1' },
      status: {
        phase: 'Running',
        podIPs: [{ ip: '10.0.0.4' }],
        containerStatuses: [{ name: 'main', ready: true, restartCount: 0, state: { running: {} } }],
      },
    };
    const build = (options: Partial<Parameters<typeof buildTable>[2]>) =>
      buildTable(pods, [pod], {
        includeObject: 'Metadata',
        listMeta: { resourceVersion: '106' },
        now: NOW,
        ...options,
      }) as any;

    it('answers with the shape kubectl received in the recorded sample (shared/kubectl-samples/pod-table.json)', () => {
      const table = build({});
      expect(Object.keys(table)).to.deep.equal(['kind', 'apiVersion', 'metadata', 'columnDefinitions', 'rows']);
      expect([table.kind, table.apiVersion, table.metadata]).to.deep.equal([
        'Table',
        'meta.k8s.io/v1',
        { resourceVersion: '106' },
      ]);
      expect(table.columnDefinitions[1]).to.deep.equal({
        name: 'Ready',
        type: 'string',
        format: '',
        description: 'The aggregate readiness state of this pod for accepting traffic.',
        priority: 0,
      });
      expect(table.rows).to.deep.equal([
        {
          cells: ['p', '1/1', 'Running', '0', '5m', '10.0.0.4', 'node-1', '<none>', '<none>'],
          object: {
            kind: 'PartialObjectMetadata',
            apiVersion: 'meta.k8s.io/v1',
            metadata: {
              name: 'p',
              namespace: 'default',
              uid: 'uid-p',
              resourceVersion: '103',
              creationTimestamp: CREATED,
              labels: { app: 'x' },
            },
          },
        },
      ]);
    });

    it('carries the full object with includeObject=Object and null with None', () => {
      expect(build({ includeObject: 'Object' }).rows[0].object).to.deep.equal(pod);
      const none = build({ includeObject: 'None' });
      expect(none.rows[0].object).to.equal(null);
      expect(JSON.stringify(none.rows[0])).to.contain('"object":null');
    });

    it('keeps resourceVersion, continue and remainingItemCount, and drops empty ones', () => {
      expect(
        build({ listMeta: { resourceVersion: '7', continue: 'abc', remainingItemCount: 12, selfLink: '/x' } }).metadata,
      ).to.deep.equal({
        resourceVersion: '7',
        continue: 'abc',
        remainingItemCount: 12,
      });
      expect(build({ listMeta: { resourceVersion: '7', continue: '' } }).metadata).to.deep.equal({
        resourceVersion: '7',
      });
    });

    it('sends null column definitions when headers are omitted, and an empty row list for no objects', () => {
      expect(build({ omitHeaders: true }).columnDefinitions).to.equal(null);
      const empty = buildTable(pods, [], { includeObject: 'Metadata', listMeta: {}, now: NOW }) as any;
      expect([empty.metadata, empty.rows, empty.columnDefinitions.length]).to.deep.equal([{}, [], 9]);
    });

    it('adds row conditions only where the printer reports them', () => {
      const done = { ...pod, metadata: metadata('done'), status: { phase: 'Succeeded' } };
      const table = buildTable(pods, [pod, done], { includeObject: 'None', listMeta: {}, now: NOW }) as any;
      expect('conditions' in table.rows[0]).to.equal(false);
      expect(table.rows[1].conditions[0]).to.include({ type: 'Completed', reason: 'Succeeded' });
    });
  });
});
