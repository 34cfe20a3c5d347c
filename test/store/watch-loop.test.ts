import { expect } from 'chai';
import { EmbeddedStore } from '../../store/index.js';
import { WatchLoop } from '../../store/watch-loop.js';

describe('WatchLoop', () => {
  it('relists when the history its watch would start from was compacted, and follows on from the new list', async () => {
    const store = await EmbeddedStore.open({ historyWindow: 5 });
    await store.create('/w/a', '0');
    const lists: string[][] = [];
    const seen = new Map<string, string>();
    const loop = new WatchLoop(
      store,
      '/w/',
      {
        onList: async (items) => {
          lists.push(items.map((item) => item.key));
          for (const item of items) seen.set(item.key, item.value);
          // Past the window before the watch opens: it starts from a compacted revision.
          if (lists.length === 1) for (let i = 0; i < 20; i++) await store.create(`/w/b${i}`, String(i));
        },
        onEvent: (event) => void (event.type === 'delete' ? seen.delete(event.key) : seen.set(event.key, event.value)),
      },
      'watch-loop-test',
    );
    await loop.start();
    const deadline = Date.now() + 5000;
    while (lists.length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await store.create('/w/c', 'after');
    while (!seen.has('/w/c') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await loop.stop();
    await store.close();
    expect(lists).to.have.length(2);
    expect(lists[1]).to.include('/w/b19');
    expect(seen.get('/w/c')).to.equal('after');
    expect(seen.size).to.equal(22);
  });
});
