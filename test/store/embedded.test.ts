import { EmbeddedStore } from '../../store/index.js';
import { makeTempDir } from '../support/temp-dir.js';
import { storeConformance } from './conformance.js';

describe('store conformance: embedded', () => {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  storeConformance(
    () => ({
      open: async (options) => {
        const { dir, remove } = await makeTempDir('embedded');
        cleanups.push(remove);
        return EmbeddedStore.open({ dataDir: dir, ...options });
      },
    }),
    { multiProcess: false },
  );
});
