import { expect } from 'chai';
import fc from 'fast-check';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SEED_VARIABLE, testSeed } from '../support/seed.js';
import { makeTempDir } from '../support/temp-dir.js';

const RUNNER = fileURLToPath(new URL('../run.js', import.meta.url));
const HELPER = new URL('../support/seed.js', import.meta.url).href;

/** Runs `body` with PADDOCK_TEST_SEED set to `value` (or unset), then puts the variable back. */
function withSeedVariable<T>(value: string | undefined, body: () => T): T {
  const saved = process.env[SEED_VARIABLE];
  if (value === undefined) delete process.env[SEED_VARIABLE];
  else process.env[SEED_VARIABLE] = value;
  try {
    return body();
  } finally {
    if (saved === undefined) delete process.env[SEED_VARIABLE];
    else process.env[SEED_VARIABLE] = saved;
  }
}

const draw = (random: () => number, n = 8) => Array.from({ length: n }, () => random());
const sample = (seed: number) =>
  fc.sample(fc.tuple(fc.string({ maxLength: 10 }), fc.integer(), fc.array(fc.nat(), { maxLength: 4 })), {
    seed,
    numRuns: 20,
  });

describe('test seeds (test/support/seed.ts): printed, and the same seed generates the same inputs', () => {
  it('the same seed gives the same sequence, another seed another', () => {
    withSeedVariable('1234', () => {
      const seed = testSeed(import.meta.url);
      expect(draw(seed.random())).to.deep.equal(draw(seed.random()));
      for (const value of draw(seed.random(), 1000)) expect(value).to.be.at.least(0).and.below(1);
    });
    const one = withSeedVariable('1234', () => testSeed(import.meta.url).random());
    const other = withSeedVariable('1235', () => testSeed(import.meta.url).random());
    expect(draw(one)).not.to.deep.equal(draw(other));
  });

  it('the same seed gives fast-check the same inputs, another seed other inputs', () => {
    const seed = withSeedVariable('987654', () => testSeed(import.meta.url).seed);
    expect(seed).to.equal(987654);
    expect(sample(seed)).to.deep.equal(sample(seed));
    expect(sample(seed)).not.to.deep.equal(sample(seed + 1));
  });

  it('PADDOCK_TEST_SEED wins over a pinned seed; without it the pinned seed, else the run’s one seed', () => {
    withSeedVariable('42', () => expect(testSeed(import.meta.url, 777).seed).to.equal(42));
    withSeedVariable('-5', () => expect(testSeed(import.meta.url, 777).seed).to.equal(-5));
    withSeedVariable(undefined, () => {
      expect(testSeed(import.meta.url, 777).seed).to.equal(777);
      const run = testSeed(import.meta.url).seed;
      expect(Number.isSafeInteger(run) && run >= 0 && run < 2 ** 31, String(run)).to.equal(true);
      expect(testSeed(new URL('./another.test.js', import.meta.url).href).seed).to.equal(run);
    });
  });

  it('refuses a PADDOCK_TEST_SEED that is not a 32-bit integer', () => {
    for (const bad of ['abc', '1.5', '12abc', String(2 ** 31), '1e3'])
      withSeedVariable(bad, () => expect(() => testSeed(import.meta.url), bad).to.throw(SEED_VARIABLE));
  });

  it('the note names the variable, the seed and this file as the runner selects it', () => {
    withSeedVariable('31337', () =>
      expect(testSeed(import.meta.url).note).to.equal(
        'seed 31337 (replay: PADDOCK_TEST_SEED=31337 npm test -- runner/seed.test)',
      ),
    );
  });

  it('a run replayed with the seed it printed generates the same inputs (through the runner)', async function () {
    this.timeout(60_000);
    const scratch = await makeTempDir('seed-replay');
    try {
      await writeFile(path.join(scratch.dir, 'package.json'), '{ "type": "module" }\n');
      // A randomized test as the suite writes them, printing what it generated.
      await writeFile(
        path.join(scratch.dir, 'random.test.js'),
        `import fc from ${JSON.stringify(import.meta.resolve('fast-check'))};
        import { testSeed } from ${JSON.stringify(HELPER)};
        describe('randomized', () => {
          it('generates', () => {
            const { seed, random } = testSeed(import.meta.url);
            const next = random();
            const inputs = fc.sample(fc.string(), { seed, numRuns: 5 });
            console.log('inputs ' + JSON.stringify([inputs, next(), next()]));
          });
        });`,
      );
      const run = (seed: string | undefined) =>
        new Promise<string>((resolve, reject) => {
          const env: NodeJS.ProcessEnv = { ...process.env, PADDOCK_TEST_ROOT: scratch.dir };
          if (seed === undefined) delete env[SEED_VARIABLE];
          else env[SEED_VARIABLE] = seed;
          const child = spawn(process.execPath, [RUNNER], { env, stdio: ['ignore', 'pipe', 'inherit'] });
          let out = '';
          child.stdout.on('data', (c: Buffer) => (out += c.toString()));
          child.once('error', reject);
          child.once('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}:\n${out}`))));
        });
      const inputs = (out: string) => /^inputs (.*)$/m.exec(out)?.[1];

      const first = await run(undefined);
      const printed = /seed (-?\d+) \(replay: PADDOCK_TEST_SEED=(-?\d+) npm test -- random\.test\)/.exec(first);
      expect(printed, first).not.to.equal(null);
      expect(printed![1]).to.equal(printed![2]);
      expect(inputs(first), first).to.be.a('string');

      const replayed = await run(printed![1]);
      expect(inputs(replayed), replayed).to.equal(inputs(first));
      const other = await run(String((Number(printed![1]) + 1) % 2 ** 31));
      expect(inputs(other), other).not.to.equal(inputs(first));
    } finally {
      await scratch.remove();
    }
  });
});
