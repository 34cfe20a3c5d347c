import { randomUUID } from 'node:crypto';
import type { ApiServer } from '../apiserver/api-server.js';
import type { ApiObject } from '../apiserver/registry/object-store.js';
import { mutate } from '../apiserver/registry/object-mutation.js';
import { ApiError } from '../apiserver/status.js';
import { reportFault } from '../apiserver/process-faults.js';

/** The node's InternalIP, and so every pod's hostIP. */
export const NODE_IP = '10.0.0.1';
const KUBELET_PORT = 10250;
/** The kubelet renews its Lease every 10 s (a quarter of its 40 s duration). */
const LEASE_RENEW_MS = 10_000;
const LEASE_DURATION_SECONDS = 40;
/** With nothing changed, the kubelet posts its status every 5 minutes (nodeStatusReportFrequency). */
const STATUS_REPORT_MS = 5 * 60_000;

const RESOURCES = {
  cpu: '8',
  'ephemeral-storage': '102625208Ki',
  'hugepages-1Gi': '0',
  'hugepages-2Mi': '0',
  memory: '32783216Ki',
  pods: '110',
};

/** kind's name for a one-node cluster's node: `<cluster>-control-plane`. */
export function simulatedNodeName(clusterName: string): string {
  return `${clusterName}-control-plane`;
}

const seconds = (date: Date) => date.toISOString().replace(/\.\d{3}Z$/, 'Z');
/** A Lease's renewTime is a MicroTime: six fractional digits. */
const micro = (date: Date) => date.toISOString().replace(/Z$/, '000Z');

/**
 * The devcluster's one Node, as a kubelet registers and keeps it: created at start when absent
 * (a one-node kind cluster's control-plane node, untainted so everything runs on it), Ready with
 * the kubelet's condition reasons, its Lease in `kube-node-lease` renewed every 10 s and its
 * conditions' heartbeats every 5 minutes, so it never turns NotReady.
 */
export class SimulatedNode {
  private timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly api: ApiServer,
    readonly name: string,
  ) {}

  async start(): Promise<void> {
    const node = await this.register();
    await this.renewLease(node);
    this.timers = [
      setInterval(() => void this.renewLease(node).catch(this.fault('renewing the lease')), LEASE_RENEW_MS).unref(),
      setInterval(() => void this.postStatus().catch(this.fault('posting node status')), STATUS_REPORT_MS).unref(),
    ];
  }

  stop(): void {
    this.timers.forEach((timer) => clearInterval(timer));
  }

  private fault(what: string): (err: unknown) => void {
    return (err) => reportFault('detached', `simulated node ${this.name}: ${what}`, err);
  }

  private async register(): Promise<ApiObject> {
    const nodes = this.api.registryOf('', 'nodes')!;
    try {
      const registered = await nodes.get('', this.name);
      // A restarted kubelet posts its status at once.
      await this.postStatus();
      return registered;
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 404)) throw err;
    }
    const created = await nodes.create('', this.node());
    return nodes.update('', this.name, { ...created, status: this.status(new Date(), new Date()) }, 'status');
  }

  private node(): ApiObject {
    return {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name: this.name,
        labels: {
          'beta.kubernetes.io/arch': 'amd64',
          'beta.kubernetes.io/os': 'linux',
          'kubernetes.io/arch': 'amd64',
          'kubernetes.io/hostname': this.name,
          'kubernetes.io/os': 'linux',
          'node-role.kubernetes.io/control-plane': '',
        },
        annotations: {
          'node.alpha.kubernetes.io/ttl': '0',
          'volumes.kubernetes.io/controller-managed-attach-detach': 'true',
        },
      },
      spec: {
        podCIDR: '10.244.0.0/16',
        podCIDRs: ['10.244.0.0/16'],
        providerID: `kind://docker/paddock/${this.name}`,
      },
    };
  }

  private status(transition: Date, heartbeat: Date): Record<string, unknown> {
    const condition = (type: string, status: string, reason: string, message: string) => ({
      type,
      status,
      lastHeartbeatTime: seconds(heartbeat),
      lastTransitionTime: seconds(transition),
      reason,
      message,
    });
    return {
      capacity: RESOURCES,
      allocatable: RESOURCES,
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: NODE_IP },
        { type: 'Hostname', address: this.name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: KUBELET_PORT } },
      nodeInfo: {
        machineID: randomUUID().replaceAll('-', ''),
        systemUUID: randomUUID(),
        bootID: randomUUID(),
        kernelVersion: '6.8.0-paddock',
        osImage: 'Debian GNU/Linux 12 (bookworm)',
        containerRuntimeVersion: 'containerd://1.7.24',
        kubeletVersion: 'v1.32.0',
        kubeProxyVersion: 'v1.32.0',
        operatingSystem: 'linux',
        architecture: 'amd64',
      },
      runtimeHandlers: [{ name: 'runc', features: { recursiveReadOnlyMounts: true, userNamespaces: true } }],
    };
  }

  /** Refreshes the heartbeats; the node deleted by someone stays deleted, as a running kubelet leaves it. */
  private async postStatus(): Promise<void> {
    const now = seconds(new Date());
    await mutate(
      this.api.registryOf('', 'nodes')!,
      '',
      this.name,
      (node) => {
        for (const condition of node.status?.conditions ?? []) condition.lastHeartbeatTime = now;
        return true;
      },
      { subresource: 'status' },
    );
  }

  private async renewLease(node: ApiObject): Promise<void> {
    const leases = this.api.registryOf('coordination.k8s.io', 'leases')!;
    const renewTime = micro(new Date());
    try {
      await leases.create('kube-node-lease', {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          name: this.name,
          ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: this.name, uid: node.metadata.uid }],
        },
        spec: { holderIdentity: this.name, leaseDurationSeconds: LEASE_DURATION_SECONDS, renewTime },
      });
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 409)) throw err;
      await mutate(leases, 'kube-node-lease', this.name, (lease) => {
        lease.spec = { ...lease.spec, renewTime };
        return true;
      });
    }
  }
}
