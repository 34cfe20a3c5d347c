import { randomInt } from 'node:crypto';

/** kube-apiserver's default --service-cluster-ip-range. */
const BASE = (10 << 24) | (96 << 16);
const SIZE = 1 << 20;

const dotted = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

/** The first host of the range, which kube-apiserver gives its own `kubernetes` Service. */
export const KUBERNETES_SERVICE_IP = dotted(BASE + 1);

/**
 * kube-apiserver's ClusterIP allocator for 10.96.0.0/12: a free address at random, skipping the
 * network address and the first host (the `kubernetes` Service's). The addresses in use are read
 * from the Services once, at the first allocation, and kept from then on, as kube keeps its
 * allocation bitmap: each allocation, and each address a Service asks for itself, is marked, so an
 * allocation costs the same with 10,000 Services as with none. An address is not given back when
 * its Service goes (kube's is): the range holds a million, more than a devcluster's life makes.
 */
export class ServiceIpAllocator {
  private used: Promise<Set<string>> | undefined;

  constructor(
    /** The addresses the stored Services hold. */
    private readonly inUse: () => Promise<Set<string>>,
    /** An offset into the range's allocatable addresses, at random (a test's may be fixed). */
    private readonly pick: () => number = () => randomInt(SIZE - 3),
  ) {}

  async allocate(): Promise<string> {
    const used = await this.marked();
    for (let attempt = 0; attempt < 100; attempt++) {
      const ip = dotted(BASE + 2 + this.pick());
      if (used.has(ip)) continue;
      used.add(ip);
      return ip;
    }
    throw new Error('no free service ClusterIP found');
  }

  /** An address a Service asked for itself, marked in use. */
  async reserve(ip: string): Promise<void> {
    (await this.marked()).add(ip);
  }

  private marked(): Promise<Set<string>> {
    // A failed read is tried again at the next allocation.
    this.used ??= this.inUse().catch((err: unknown) => {
      this.used = undefined;
      throw err;
    });
    return this.used;
  }
}
