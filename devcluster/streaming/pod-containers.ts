/** Which container of a pod a log, exec or attach request means, decided as kube-apiserver decides it. */
import { badRequest } from '../../apiserver/status.js';

export type Container = Record<string, any>;

function containerList(
  pod: Record<string, any>,
  field: 'containers' | 'initContainers' | 'ephemeralContainers',
): Container[] {
  const list = pod.spec?.[field];
  return Array.isArray(list) ? list : [];
}

/**
 * The named container (any kind: app, init or ephemeral), or the only app container when no name
 * is given. Throws 400 BadRequest with kube's wording otherwise.
 */
export function resolveContainer(pod: Record<string, any>, requested: string | null): Container {
  const podName = String(pod.metadata?.name ?? '');
  const containers = containerList(pod, 'containers');
  if (!requested) {
    if (containers.length === 1) return containers[0];
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${podName}`);
    const names = (list: Container[]) => list.map((c) => c.name).join(' ');
    const initContainers = containerList(pod, 'initContainers');
    const initChoice = initContainers.length > 0 ? ` or one of the init containers: [${names(initContainers)}]` : '';
    throw badRequest(
      `a container name must be specified for pod ${podName}, choose one of: [${names(containers)}]${initChoice}`,
    );
  }
  const all = [...containers, ...containerList(pod, 'initContainers'), ...containerList(pod, 'ephemeralContainers')];
  const found = all.find((c) => c.name === requested);
  if (!found) throw badRequest(`container ${requested} is not valid for pod ${podName}`);
  return found;
}
