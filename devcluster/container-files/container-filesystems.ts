/**
 * The simulated kubelet's side of a pod's files: one in-memory file system per container, made at
 * the first exec into it and kept while the pod lives (what `kubectl cp` writes stays readable),
 * with the pod's API-backed volumes mounted read-only at each of the container's volumeMounts and
 * refreshed on every exec, as the kubelet syncs them (kubelet-volume-sources.ts reads them).
 */
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { ContainerFilesystem } from './container-filesystem.js';
import { volumeFiles, type VolumeSources } from './pod-volumes.js';

export class ContainerFilesystems {
  private readonly byPod = new Map<string, Map<string, ContainerFilesystem>>();

  constructor(private readonly sources: VolumeSources) {}

  /** The container's file system with its volumes as they are now. */
  async of(pod: ApiObject, container: Record<string, any>): Promise<ContainerFilesystem> {
    const uid: string = pod.metadata.uid;
    let containers = this.byPod.get(uid);
    if (!containers) this.byPod.set(uid, (containers = new Map()));
    let fs = containers.get(container.name);
    if (!fs) containers.set(container.name, (fs = new ContainerFilesystem(container.workingDir || '/')));
    for (const mount of Array.isArray(container.volumeMounts) ? container.volumeMounts : []) {
      const files = await volumeFiles(pod, mount?.name, this.sources);
      if (files && typeof mount.mountPath === 'string') fs.mount(mount.mountPath, files);
    }
    return fs;
  }

  /** The pod is gone: so are its containers' files and the tokens requested for it. */
  forget(podUid: string): void {
    this.byPod.delete(podUid);
    this.sources.forget?.(podUid);
  }
}
