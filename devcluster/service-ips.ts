import { randomInt } from 'node:crypto';

/** kube-apiserver's default --service-cluster-ip-range. */
const BASE = (10 << 24) | (96 << 16);
const SIZE = 1 << 20;

const dotted = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

/** The first host of the range, which kube-apiserver gives its own `kubernetes` Service. */
export const KUBERNETES_SERVICE_IP = dotted(BASE + 1);

/**
 * Picks a free ClusterIP in 10.96.0.0/12 at random (skipping the network address and the first
 * host, which kube reserves for the `kubernetes` Service), checking the addresses in use.
 */
export async function allocateServiceIp(inUse: () => Promise<Set<string>>): Promise<string> {
  const used = await inUse();
  for (let attempt = 0; attempt < 100; attempt++) {
    const ip = dotted(BASE + 2 + randomInt(SIZE - 3));
    if (!used.has(ip)) return ip;
  }
  throw new Error('no free service ClusterIP found');
}
