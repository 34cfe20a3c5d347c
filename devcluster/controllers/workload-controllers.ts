import type { ApiServer } from '../../apiserver/api-server.js';
import type { Store } from '../../store/index.js';
import { DaemonSetController } from './daemonset-controller.js';
import { DeploymentController } from './deployment-controller.js';
import { HorizontalPodAutoscalerController } from './horizontal-pod-autoscaler-controller.js';
import { ReplicaSetController } from './replicaset-controller.js';
import { StatefulSetController } from './statefulset-controller.js';

/** The simulated workload controllers of kube-controller-manager and its HPA controller, started and stopped together. */
export class WorkloadControllers {
  private readonly controllers: { start(): Promise<void>; stop(): Promise<void> }[];

  constructor(api: ApiServer, store: Store) {
    this.controllers = [
      new ReplicaSetController(api, store),
      new DeploymentController(api, store),
      new StatefulSetController(api, store),
      new DaemonSetController(api, store),
      new HorizontalPodAutoscalerController(api, store),
    ];
  }

  async start(): Promise<void> {
    for (const controller of this.controllers) await controller.start();
  }

  async stop(): Promise<void> {
    await Promise.all(this.controllers.map((controller) => controller.stop()));
  }
}
