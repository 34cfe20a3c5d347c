import { expect } from 'chai';
import { KUBERNETES_SERVICE_IP, ServiceIpAllocator } from '../../devcluster/service-ips.js';

/** The message a promise is rejected with; undefined when it is fulfilled. */
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: Error) => err.message,
  );

describe("devcluster: the ClusterIP allocator (kube-apiserver's, for 10.96.0.0/12)", () => {
  it('reads the addresses in use once, then keeps them: each allocation and each address asked for is marked', async () => {
    let reads = 0;
    const picks = [0, 0, 1, 1, 2, 3];
    const allocator = new ServiceIpAllocator(
      async () => {
        reads++;
        return new Set(['10.96.0.2']);
      },
      () => picks.shift()!,
    );
    // 10.96.0.2 is in use: the next pick is taken.
    expect(await allocator.allocate()).to.equal('10.96.0.3');
    await allocator.reserve('10.96.0.4');
    // 0 and 1 again are in use now; 2 (10.96.0.4) was asked for: 3 it is.
    expect(await allocator.allocate()).to.equal('10.96.0.5');
    expect(reads).to.equal(1);
  });

  it('never gives the network address or the kubernetes Service’s, and fails when it finds no free one', async () => {
    const first = new ServiceIpAllocator(
      async () => new Set(),
      () => 0,
    );
    const ip = await first.allocate();
    expect(ip).to.equal('10.96.0.2');
    expect(ip).not.to.equal(KUBERNETES_SERVICE_IP);
    expect(await failureOf(first.allocate())).to.equal('no free service ClusterIP found');
  });

  it('reads the addresses again after a failed read', async () => {
    let reads = 0;
    const allocator = new ServiceIpAllocator(
      async () => {
        if (++reads === 1) throw new Error('store unavailable');
        return new Set<string>();
      },
      () => 7,
    );
    expect(await failureOf(allocator.allocate())).to.equal('store unavailable');
    expect(await allocator.allocate()).to.equal('10.96.0.9');
    expect(reads).to.equal(2);
  });
});
