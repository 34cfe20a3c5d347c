/**
 * An embedded lease that expires while the store cannot delete its keys (the store failed: its
 * disk is full, say): the holder still learns its lease is over, and the failure does not
 * escape as an unhandled rejection (which would end a server).
 */
import { expect } from 'chai';
import { EmbeddedLease } from '../../store/embedded/leases.js';
import { eventually } from '../support/eventually.js';

describe('embedded leases', () => {
  it('end for their holder when they expire, even when deleting their keys fails', async () => {
    const escaped: unknown[] = [];
    const onUnhandled = (reason: unknown) => escaped.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const lease = new EmbeddedLease(0.1, () => Promise.reject(new Error('no space left on device')));
      lease.release();
      await eventually(
        async () => lease.alive,
        (alive) => expect(alive).to.equal(false),
        5_000,
      );
      expect((lease.signal.reason as Error).message).to.equal(
        'lease expired after 0.1s without renewal; deleting its keys failed: no space left on device',
      );
      await new Promise((resolve) => setImmediate(resolve));
      expect(escaped).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
