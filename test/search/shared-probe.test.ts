/**
 * SharedProbe: reads that arrive while a probe is in flight share the next one (never the one
 * that started before them), at most one waits per key, keys are independent, and a probe that
 * throws at once fails its readers like one that fails later.
 */
import { expect } from 'chai';
import { SharedProbe } from '../../search/shared-probe.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('cache: SharedProbe', () => {
  it('a read during a probe waits for the next, which serves every read that arrived meanwhile', async () => {
    const started: { key: string; answer: (value: number) => void }[] = [];
    const probe = new SharedProbe((key) => new Promise<number>((resolve) => started.push({ key, answer: resolve })));
    const first = probe.get('a');
    await settle();
    const second = probe.get('a');
    const third = probe.get('a');
    const other = probe.get('b');
    await settle();
    expect(started.map((s) => s.key)).to.deep.equal(['a', 'b']);
    started[0].answer(1);
    expect(await first).to.equal(1);
    await settle();
    expect(
      started.map((s) => s.key),
      'the waiting reads start one probe',
    ).to.deep.equal(['a', 'b', 'a']);
    started[2].answer(2);
    started[1].answer(7);
    expect(await Promise.all([second, third, other])).to.deep.equal([2, 2, 7]);
    const later = probe.get('a');
    await settle();
    expect(started, 'after every probe has ended, a read starts its own').to.have.length(4);
    started[3].answer(3);
    expect(await later).to.equal(3);
  });

  it('a probe that throws at once, or fails later, fails its readers and not the next probe', async () => {
    let calls = 0;
    const probe = new SharedProbe<number>(() => {
      calls++;
      if (calls === 1) throw new Error('refused at once');
      if (calls === 2) return Promise.reject(new Error('refused later'));
      return Promise.resolve(calls);
    });
    let error = await probe.get('a').catch((err: Error) => err.message);
    expect(error).to.equal('refused at once');
    error = await probe.get('a').catch((err: Error) => err.message);
    expect(error).to.equal('refused later');
    expect(await probe.get('a')).to.equal(3);
  });
});
