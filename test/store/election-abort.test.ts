import { expect } from 'chai';
import { EmbeddedStore, type Store } from '../../store/index.js';

describe('store: a campaign given up while its watch opens', function () {
  this.timeout(5000);

  it('ends with the abort reason, not waiting for the leader to go', async () => {
    const store = await EmbeddedStore.open({});
    try {
      const leader = await store.elect('quit', 30, { identity: 'leader' });
      const controller = new AbortController();
      // The abort lands between the watch being asked for and it being open, as it can on a busy
      // process: the signal's abort event has gone by when the campaign starts listening.
      const racing = new Proxy(store, {
        get(target, property, receiver) {
          if (property !== 'watch') return Reflect.get(target, property, receiver) as unknown;
          return async (...args: Parameters<Store['watch']>) => {
            const watch = await target.watch(...args);
            controller.abort(new Error('not interested'));
            return watch;
          };
        },
      });
      const campaign = racing.elect('quit', 30, { identity: 'quitter', signal: controller.signal });
      const outcome = await campaign.then(
        () => 'elected',
        (err: Error) => err.message,
      );
      expect(outcome).to.equal('not interested');
      await leader.resign();
    } finally {
      await store.close();
    }
  });
});
