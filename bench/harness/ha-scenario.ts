/**
 * The HA scenario (issue 19): on an HA stage (ha-stage.ts), a tenant's steady load through the
 * balancer — writers creating ConfigMaps one after another, a client-node informer following
 * them, the real kubectl listing them — while the replica leading the controllers is killed with
 * SIGKILL, and then another replica is restarted (SIGTERM, its graceful stop, and started
 * again). What it returns is what the HA test asserts and the `ha` benchmark prints.
 */
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { RestClient } from '../../apiserver/client/rest-client.js';
import { openStore } from '../../store/index.js';
import { KUBECONFIG_ANNOTATION } from '../../tenants/tenant-kubeconfig.js';
import type { HaStage } from './ha-stage.js';
import { sleep } from './sleep.js';

const run = promisify(execFile);
const TENANTS = '/apis/tenant.kubezoo.io/v1alpha1/tenants';
const KUBECTL = '/usr/lib/google-cloud-sdk/bin/kubectl.1.32';
const ELECTION = '/elections/tenant-controller/';

export interface HaScenarioOptions {
  /** Load before the kill, between the kill and the restart, and after it. */
  phaseMs: number;
  /** The writer's pause between two writes. */
  writePauseMs: number;
}

export interface ClientRecord {
  requests: number;
  failures: { at: number; message: string }[];
  /** The most failures in a row: a client that reconnects fails once per lost connection. */
  worstRun: number;
}

export interface HaOutcome {
  /** ConfigMaps whose create was answered 201. */
  acknowledged: string[];
  /** Every ConfigMap the tenant lists at the end, through the balancer. */
  listedAtEnd: string[];
  /** One writer per replica, each on its own connection. */
  writers: ClientRecord[];
  kubectl: ClientRecord;
  /** How many `add` events the informer gave for each name. */
  informerAdds: Map<string, number>;
  /** Errors the informer reported (each followed by its restart). */
  informerErrors: number;
  /** Writes answered (either way) in the second after the kill. */
  writesInTheSecondAfterKill: number;
  /** From the kill until every writer has succeeded again. */
  writerRecoveryMs: number;
  /** The replica that led the tenant controller, killed; and the one leading after. */
  killedLeader: string;
  leaderAfter: string;
  /** From the kill to a Tenant made then being Active (another replica's controller took over). */
  controllerTakeoverMs: number;
  /** The replica restarted gracefully. */
  restarted: string;
}

export async function runHaScenario(stage: HaStage, options: HaScenarioOptions): Promise<HaOutcome> {
  const admin = RestClient.fromKubeconfig(await readFile(stage.adminKubeconfigPath, 'utf8'));
  const kubeconfigPath = `${stage.dir}/hatest.kubeconfig`;
  try {
    await writeFile(kubeconfigPath, await makeTenant(admin, 'hatest'));
    const tenantKubeconfig = await readFile(kubeconfigPath, 'utf8');
    const tenant = RestClient.fromKubeconfig(tenantKubeconfig);
    const kubeconfig = new KubeConfig();
    kubeconfig.loadFromFile(kubeconfigPath);
    const core = kubeconfig.makeApiClient(CoreV1Api);
    const informerAdds = new Map<string, number>();
    let informerErrors = 0;
    let stopped = false;
    const informer = makeInformer<V1ConfigMap>(kubeconfig, '/api/v1/namespaces/default/configmaps', () =>
      core.listNamespacedConfigMap({ namespace: 'default' }),
    );
    informer.on('add', (cm) => {
      const name = cm.metadata!.name!;
      informerAdds.set(name, (informerAdds.get(name) ?? 0) + 1);
    });
    // client-node's informer stops on an error; a controller starts it again, as this does.
    informer.on('error', () => {
      informerErrors++;
      if (!stopped) setTimeout(() => !stopped && void informer.start().catch(() => undefined), 200);
    });
    await informer.start();

    const acknowledged: string[] = [];
    const writeTimes: number[] = [];
    // One writer per replica, each on a connection of its own (the balancer spreads them by
    // fewest connections), so that whichever replica is killed, a writer's connection is on it.
    const writers = stage.replicas.map((_, w) => ({
      record: record(),
      client: RestClient.fromKubeconfig(tenantKubeconfig),
      w,
    }));
    const writing = Promise.all(
      writers.map(async ({ record: writer, client, w }) => {
        for (let i = 0; !stopped; i++) {
          const name = `w${w}-${String(i).padStart(5, '0')}`;
          const res = await client
            .request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name } })
            .catch((err: Error) => ({ status: 0, text: err.message }));
          writeTimes.push(Date.now());
          if (res.status === 201) {
            acknowledged.push(name);
            writer.succeeded();
          } else writer.failed(`${name}: ${res.status} ${res.text.slice(0, 200)}`);
          await sleep(options.writePauseMs);
        }
        client.close();
      }),
    );
    const kubectl = record();
    const listing = (async () => {
      while (!stopped) {
        await run(KUBECTL, ['get', 'configmaps', '-o', 'name', '--request-timeout=10s'], {
          env: { ...process.env, KUBECONFIG: kubeconfigPath, KUBECACHEDIR: `${stage.dir}/kubectl-cache` },
        }).then(
          () => kubectl.succeeded(),
          (err: Error & { stderr?: string }) => kubectl.failed(err.stderr?.trim() || err.message),
        );
        await sleep(300);
      }
    })();

    await sleep(options.phaseMs);
    const killedLeader = await leaderOf(stage);
    const leaderReplica = stage.replicas.find((replica) => killedLeader.endsWith(`_${replica.port}`))!;
    const killedAt = Date.now();
    await leaderReplica.kill('SIGKILL');
    await makeTenant(admin, 'after1');
    const controllerTakeoverMs = Date.now() - killedAt;
    const leaderAfter = await leaderOf(stage);

    await sleep(options.phaseMs);
    const other = stage.replicas.find((replica) => replica !== leaderReplica)!;
    await other.kill('SIGTERM');
    await other.start();
    await leaderReplica.start();
    await sleep(options.phaseMs);
    stopped = true;
    await Promise.all([writing, listing]);

    // Everything acknowledged reaches the informer (its events may trail the writes).
    const deadline = Date.now() + 30_000;
    while (acknowledged.some((name) => !informerAdds.has(name)) && Date.now() < deadline) await sleep(100);
    await informer.stop();
    const listed = await tenant.request('GET', '/api/v1/namespaces/default/configmaps');
    tenant.close();
    const firstSuccessAfterKill = Math.max(
      ...writers.map(({ record: writer }) => writer.successTimes.find((at) => at > killedAt) ?? Date.now()),
    );
    return {
      acknowledged,
      listedAtEnd: (listed.body?.items ?? []).map((cm: V1ConfigMap) => cm.metadata!.name!),
      writers: writers.map(({ record: writer }) => writer.summary()),
      kubectl: kubectl.summary(),
      informerAdds,
      informerErrors,
      writesInTheSecondAfterKill: writeTimes.filter((at) => at >= killedAt && at < killedAt + 1000).length,
      writerRecoveryMs: firstSuccessAfterKill - killedAt,
      killedLeader,
      leaderAfter,
      controllerTakeoverMs,
      restarted: other.name,
    };
  } finally {
    admin.close();
  }
}

/** A Tenant made through the balancer, once Active (retried while a replica goes): its kubeconfig. */
async function makeTenant(admin: RestClient, id: string): Promise<string> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const res = await admin
      .request('POST', TENANTS, { apiVersion: 'tenant.kubezoo.io/v1alpha1', kind: 'Tenant', metadata: { name: id } })
      .catch(() => undefined);
    if (res?.status === 201 || res?.status === 409) break;
    // No answer, or a replica's 5xx while it goes: again; anything else is the request's fault.
    if (Date.now() > deadline || (res && res.status < 500))
      throw new Error(`creating tenant ${id}: ${res?.status} ${res?.text}`);
    await sleep(100);
  }
  for (;;) {
    const res = await admin.request('GET', `${TENANTS}/${id}`).catch(() => undefined);
    const kubeconfig = res?.body?.metadata?.annotations?.[KUBECONFIG_ANNOTATION];
    if (res?.body?.status?.phase === 'Active' && kubeconfig) return Buffer.from(kubeconfig, 'base64').toString();
    if (Date.now() > deadline) throw new Error(`tenant ${id} not Active: ${res?.text}`);
    await sleep(50);
  }
}

/** The identity of the tenant controller's leader: the oldest candidate key of its election in etcd. */
async function leaderOf(stage: HaStage): Promise<string> {
  const store = await openStore({ dataDir: stage.dir, etcdEndpoints: [stage.etcd.endpoint] });
  try {
    for (let tries = 0; ; tries++) {
      const { items } = await store.list(ELECTION);
      if (items.length) return items.reduce((a, b) => (b.createRevision < a.createRevision ? b : a)).value;
      if (tries > 100) throw new Error('no candidate in the tenant controller election');
      await sleep(50);
    }
  } finally {
    await store.close();
  }
}

function record() {
  const failures: { at: number; message: string }[] = [];
  const successTimes: number[] = [];
  let requests = 0;
  let run = 0;
  let worstRun = 0;
  return {
    successTimes,
    succeeded() {
      requests++;
      run = 0;
      successTimes.push(Date.now());
    },
    failed(message: string) {
      requests++;
      failures.push({ at: Date.now(), message });
      worstRun = Math.max(worstRun, ++run);
    },
    summary: (): ClientRecord => ({ requests, failures, worstRun }),
  };
}
