/**
 * Cluster taints and tolerations against the upstream tables: k8s.io/api core/v1/toleration_test.go
 * (TestTolerationToleratesTaint), Karmada pkg/util/helper/taint_test.go (TestTaintExists,
 * TestTolerationExists, TestHasNoExecuteTaints, TestGetNoExecuteTaints, TestGetMatchingTolerations,
 * TestGetMinTolerationTime and its successor TestGetMinTolerationTimeWithCurrentTime) and Karmada's
 * scheduler TestTaintToleration_Filter, then cases of our own.
 */
import { expect } from 'chai';
import {
  hasNoExecuteTaints,
  matchingTolerations,
  minTolerationMs,
  noExecuteTaints,
  taintExists,
  tolerates,
  toleratesTaint,
  tolerationExists,
  type ClusterTaint,
  type ClusterToleration,
} from '../../clusters/tolerations.js';

const UNREACHABLE = 'cluster.karmada.io/unreachable';
const NOT_READY = 'cluster.karmada.io/not-ready';
/** The fixed "now" of Karmada's newer tables. */
const fixedNow = new Date('2025-09-23T12:00:00Z');
const secondsFrom = (at: Date, seconds: number) => new Date(at.getTime() + seconds * 1000).toISOString();

describe('eviction: a toleration tolerates a taint (k8s Toleration.ToleratesTaint)', () => {
  const sla = 'node.kubernetes.io/sla';
  const cases: [string, ClusterToleration, ClusterTaint, boolean][] = [
    [
      'same key and effect, operator Exists, taint without value: tolerated',
      { key: 'foo', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'foo', effect: 'NoSchedule' },
      true,
    ],
    [
      'same key and effect, operator Exists, taint with a value: tolerated',
      { key: 'foo', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'foo', value: 'bar', effect: 'NoSchedule' },
      true,
    ],
    [
      'same effect, empty key with operator Exists matches every key: tolerated',
      { key: '', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'foo', value: 'bar', effect: 'NoSchedule' },
      true,
    ],
    [
      'same key, effect and value, operator Equal: tolerated',
      { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' },
      { key: 'foo', value: 'bar', effect: 'NoSchedule' },
      true,
    ],
    [
      'same key and effect, different values, operator Equal: not tolerated',
      { key: 'foo', operator: 'Equal', value: 'value1', effect: 'NoSchedule' },
      { key: 'foo', value: 'value2', effect: 'NoSchedule' },
      false,
    ],
    [
      'same key and value, different effects, operator Equal: not tolerated',
      { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' },
      { key: 'foo', value: 'bar', effect: 'NoExecute' },
      false,
    ],
    [
      'Gt, taint value below the toleration value: not tolerated',
      { key: sla, operator: 'Gt', value: '950', effect: 'NoSchedule' },
      { key: sla, value: '800', effect: 'NoSchedule' },
      false,
    ],
    [
      'Gt, taint value above the toleration value: not tolerated, as Karmada turns comparison operators off (kube with them on tolerates it)',
      { key: sla, operator: 'Gt', value: '750', effect: 'NoSchedule' },
      { key: sla, value: '950', effect: 'NoSchedule' },
      false,
    ],
    [
      'Lt, taint value above the toleration value: not tolerated',
      { key: sla, operator: 'Lt', value: '800', effect: 'NoSchedule' },
      { key: sla, value: '950', effect: 'NoSchedule' },
      false,
    ],
    [
      'Lt, taint value below the toleration value: not tolerated, as Karmada turns comparison operators off (kube with them on tolerates it)',
      { key: sla, operator: 'Lt', value: '950', effect: 'NoSchedule' },
      { key: sla, value: '800', effect: 'NoSchedule' },
      false,
    ],
    [
      'Gt with an equal numeric value: not tolerated',
      { key: sla, operator: 'Gt', value: '950', effect: 'NoSchedule' },
      { key: sla, value: '950', effect: 'NoSchedule' },
      false,
    ],
    [
      'Gt with a non-numeric taint value: not tolerated',
      { key: sla, operator: 'Gt', value: '950', effect: 'NoSchedule' },
      { key: sla, value: 'high', effect: 'NoSchedule' },
      false,
    ],
    [
      'Gt with negative values, taint below the threshold: not tolerated',
      { key: 'test-key', operator: 'Gt', value: '-100', effect: 'NoSchedule' },
      { key: 'test-key', value: '-200', effect: 'NoSchedule' },
      false,
    ],
    [
      'Gt with a large int64 threshold, taint below it: not tolerated',
      { key: 'test-key', operator: 'Gt', value: '9223372036854775806', effect: 'NoSchedule' },
      { key: 'test-key', value: '100', effect: 'NoSchedule' },
      false,
    ],
    // Our own: the defaults of absent fields.
    [
      'an absent operator is Equal: equal values are tolerated',
      { key: 'foo', value: 'bar', effect: 'NoSchedule' },
      { key: 'foo', value: 'bar', effect: 'NoSchedule' },
      true,
    ],
    [
      'an absent value equals a taint without value',
      { key: 'foo', operator: 'Equal', effect: 'NoExecute' },
      { key: 'foo', effect: 'NoExecute' },
      true,
    ],
    [
      'an absent effect matches every effect',
      { key: 'foo', operator: 'Exists' },
      { key: 'foo', effect: 'PreferNoSchedule' },
      true,
    ],
    [
      'a different key is not tolerated, even with Exists',
      { key: 'foo', operator: 'Exists', effect: 'NoExecute' },
      { key: 'bar', effect: 'NoExecute' },
      false,
    ],
    [
      'an empty toleration (Exists, no key, no effect) tolerates everything',
      { operator: 'Exists' },
      { key: UNREACHABLE, value: 'x', effect: 'NoExecute' },
      true,
    ],
    [
      'an empty key with Equal only compares values: kube checks a key only when one is set',
      { operator: 'Equal', value: 'bar' },
      { key: 'foo', value: 'bar', effect: 'NoExecute' },
      true,
    ],
    [
      'an unknown operator tolerates nothing',
      { key: 'foo', operator: 'In', value: 'bar', effect: 'NoSchedule' },
      { key: 'foo', value: 'bar', effect: 'NoSchedule' },
      false,
    ],
  ];
  for (const [name, toleration, taint, expected] of cases) {
    it(name, () => {
      expect(toleratesTaint(toleration, taint)).to.equal(expected);
    });
  }
});

describe('eviction: taint and toleration lists (Karmada TaintExists, TolerationExists)', () => {
  const clusterTaints: ClusterTaint[] = [
    { key: UNREACHABLE, effect: 'NoExecute' },
    { key: NOT_READY, effect: 'NoExecute' },
  ];
  const taintCases: [string, ClusterTaint, boolean][] = [
    ['exist', { key: UNREACHABLE, effect: 'NoExecute' }, true],
    ['not exist (same key, other effect)', { key: NOT_READY, effect: 'NoSchedule' }, false],
    ['exist whatever the value (our own)', { key: UNREACHABLE, value: 'other', effect: 'NoExecute' }, true],
  ];
  for (const [name, taint, expected] of taintCases) {
    it(`taintExists: ${name}`, () => {
      expect(taintExists(clusterTaints, taint)).to.equal(expected);
    });
  }

  const tenantTolerations: ClusterToleration[] = [
    { key: UNREACHABLE, effect: 'NoExecute', operator: 'Equal', value: 'foo' },
    { key: NOT_READY, effect: 'NoExecute', operator: 'Equal', value: 'foo' },
  ];
  const tolerationCases: [string, ClusterToleration, boolean][] = [
    [
      'not exist (same key, other effect)',
      { key: NOT_READY, effect: 'NoSchedule', operator: 'Equal', value: 'foo' },
      false,
    ],
    ['exist', { key: NOT_READY, effect: 'NoExecute', operator: 'Equal', value: 'foo' }, true],
    [
      'exist whatever the tolerationSeconds (our own)',
      { key: NOT_READY, effect: 'NoExecute', operator: 'Equal', value: 'foo', tolerationSeconds: 30 },
      true,
    ],
    [
      'not exist when only the operator differs, "" against Equal (our own)',
      { key: NOT_READY, effect: 'NoExecute', value: 'foo' },
      false,
    ],
  ];
  for (const [name, toleration, expected] of tolerationCases) {
    it(`tolerationExists: ${name}`, () => {
      expect(tolerationExists(tenantTolerations, toleration)).to.equal(expected);
    });
  }
});

describe('eviction: NoExecute taints (Karmada HasNoExecuteTaints, GetNoExecuteTaints)', () => {
  const cases: [string, ClusterTaint[], ClusterTaint[]][] = [
    [
      'has NoExecute taints',
      [
        { key: UNREACHABLE, effect: 'NoExecute' },
        { key: NOT_READY, effect: 'NoSchedule' },
      ],
      [{ key: UNREACHABLE, effect: 'NoExecute' }],
    ],
    [
      'no NoExecute taints',
      [
        { key: UNREACHABLE, effect: 'PreferNoSchedule' },
        { key: NOT_READY, effect: 'NoSchedule' },
      ],
      [],
    ],
  ];
  for (const [name, taints, expected] of cases) {
    it(`${name}: hasNoExecuteTaints is ${expected.length > 0}`, () => {
      expect(hasNoExecuteTaints(taints)).to.equal(expected.length > 0);
    });
    it(`${name}: noExecuteTaints keeps ${expected.length}`, () => {
      expect(noExecuteTaints(taints)).to.deep.equal(expected);
    });
  }
});

describe('eviction: the tolerations a tenant uses (Karmada GetMatchingTolerations)', () => {
  const forever: ClusterToleration = { key: 'key', operator: 'Equal', value: 'value', effect: 'NoExecute' };
  const tenThousand: ClusterToleration = { ...forever, tolerationSeconds: 10000 };
  const noExecute: ClusterTaint = { key: 'key', value: 'value', effect: 'NoExecute' };
  const taint1: ClusterTaint = { key: 'key1', value: 'value1', effect: 'NoSchedule' };
  const taint2: ClusterTaint = { key: 'key2', value: 'value2', effect: 'NoSchedule' };
  const cases: [string, ClusterTaint[], ClusterToleration[], { tolerated: boolean; used: ClusterToleration[] }][] = [
    ['test no taints', [], [forever, tenThousand], { tolerated: true, used: [] }],
    ['test no tolerations', [noExecute], [], { tolerated: false, used: [] }],
    [
      'exist mismatch taint: the first toleration is used',
      [noExecute],
      [forever, tenThousand],
      {
        tolerated: true,
        used: [forever],
      },
    ],
    [
      "don't exist mismatch taint",
      [noExecute],
      [
        { key: 'key1', operator: 'Equal', value: 'value1', effect: 'NoExecute' },
        { key: 'key2', operator: 'Equal', value: 'value2', effect: 'NoExecute', tolerationSeconds: 10000 },
      ],
      { tolerated: false, used: [] },
    ],
    ['taints is nil', [], [{ key: 'key1', value: 'value1', effect: 'NoSchedule' }], { tolerated: true, used: [] }],
    ['tolerations is nil', [taint1], [], { tolerated: false, used: [] }],
    [
      'tolerated is true (empty operators compare values)',
      [taint1, taint2],
      [
        { key: 'key1', value: 'value1', effect: 'NoSchedule' },
        { key: 'key2', value: 'value2', effect: 'NoSchedule' },
      ],
      {
        tolerated: true,
        used: [
          { key: 'key1', value: 'value1', effect: 'NoSchedule' },
          { key: 'key2', value: 'value2', effect: 'NoSchedule' },
        ],
      },
    ],
    [
      'tolerated is false',
      [taint1, taint2],
      [
        { key: 'key1', value: 'value_1', effect: 'NoSchedule' },
        { key: 'key2', value: 'value_2', effect: 'NoSchedule' },
      ],
      { tolerated: false, used: [] },
    ],
    // Our own.
    [
      'one toleration used for two taints appears twice',
      [taint1, taint2],
      [{ operator: 'Exists', effect: 'NoSchedule' }],
      {
        tolerated: true,
        used: [
          { operator: 'Exists', effect: 'NoSchedule' },
          { operator: 'Exists', effect: 'NoSchedule' },
        ],
      },
    ],
    [
      'one untolerated taint empties the used list, though the other is tolerated',
      [taint1, taint2],
      [{ key: 'key1', operator: 'Exists' }],
      { tolerated: false, used: [] },
    ],
  ];
  for (const [name, taints, tolerations, expected] of cases) {
    it(name, () => {
      expect(matchingTolerations(taints, tolerations)).to.deep.equal(expected);
    });
  }
});

describe('eviction: how long used tolerations still hold (Karmada GetMinTolerationTime)', () => {
  // The older table: taints added at the Unix epoch (the second 5 µs later, below a Date's ms),
  // read against the real clock there, so every trigger is long past.
  const epoch = '1970-01-01T00:00:00Z';
  const epochPlus5us = '1970-01-01T00:00:00.000005Z';
  const threeTaints: ClusterTaint[] = [
    { key: 'key1', value: 'value1', effect: 'NoExecute' },
    { key: 'key2', value: 'value2', effect: 'NoExecute', timeAdded: epoch },
    { key: 'key3', value: 'value3', effect: 'NoExecute', timeAdded: epochPlus5us },
  ];
  const equal = (n: number, tolerationSeconds: number | null): ClusterToleration => ({
    key: `key${n}`,
    operator: 'Equal',
    value: `value${n}`,
    effect: 'NoExecute',
    tolerationSeconds,
  });
  const exists = (key: string, tolerationSeconds: number | null): ClusterToleration => ({
    key,
    operator: 'Exists',
    effect: 'NoExecute',
    tolerationSeconds,
  });
  const atFixedNow = (key: string, value = 'value'): ClusterTaint => ({
    key,
    value,
    effect: 'NoExecute',
    timeAdded: fixedNow.toISOString(),
  });

  const cases: [string, ClusterTaint[], ClusterToleration[], Date, number][] = [
    [
      'the length of taints is 0: for ever',
      [],
      [{ key: 'key', operator: 'Equal', value: 'value', effect: 'NoExecute', tolerationSeconds: null }],
      fixedNow,
      -1,
    ],
    ['the length of tolerations is 0: now', [{ key: 'key', value: 'value', effect: 'NoExecute' }], [], fixedNow, 0],
    [
      'test get minimal toleration time: triggers in the past give 0',
      threeTaints,
      [equal(1, null), equal(2, 10000), equal(3, 20000)],
      fixedNow,
      0,
    ],
    [
      'exist mismatch taint: tolerations with seconds tolerate no taint, so for ever',
      threeTaints,
      [equal(3, null), equal(4, 10000), equal(5, 20000)],
      fixedNow,
      -1,
    ],
    ['no noExecuteTaints: for ever', [], [exists('key', 60)], fixedNow, -1],
    ['no usedTolerations: now', [atFixedNow('key')], [], fixedNow, 0],
    ['with noExecuteTaints and usedTolerations: 60 s', [atFixedNow('key')], [exists('key', 60)], fixedNow, 60_000],
    ['usedTolerantion.TolerationSeconds is nil: for ever', [atFixedNow('key')], [exists('key', null)], fixedNow, -1],
    [
      'noExecuteTaints.TimeAdded is nil: for ever',
      [{ key: 'key', value: 'value', effect: 'NoExecute' }],
      [exists('key', 60)],
      fixedNow,
      -1,
    ],
    [
      'find the latest trigger time: the earliest of 120 s and 60 s',
      [atFixedNow('key1', 'value1'), atFixedNow('key2', 'value2')],
      [exists('key1', 120), exists('key2', 60)],
      fixedNow,
      60_000,
    ],
    [
      'trigger time is up: added 2 min ago, tolerated 60 s',
      [{ key: 'key', value: 'value', effect: 'NoExecute', timeAdded: '2025-09-23T11:58:00Z' }],
      [exists('key', 60)],
      fixedNow,
      0,
    ],
    // Our own.
    [
      'the older table read at the epoch: the earliest trigger, key2 after 10000 s',
      threeTaints,
      [equal(1, null), equal(2, 10000), equal(3, 20000)],
      new Date(epoch),
      10_000_000,
    ],
    ['tolerationSeconds null is for ever', [atFixedNow('key')], [exists('key', null)], fixedNow, -1],
    ['tolerationSeconds absent is for ever', [atFixedNow('key')], [{ key: 'key', operator: 'Exists' }], fixedNow, -1],
    ['tolerationSeconds 0 is now', [atFixedNow('key')], [exists('key', 0)], fixedNow, 0],
    ['a negative tolerationSeconds is now', [atFixedNow('key')], [exists('key', -30)], fixedNow, 0],
    [
      'a taint without timeAdded is ignored, the timed one counts',
      [
        { key: 'untimed', effect: 'NoExecute' },
        { key: 'timed', effect: 'NoExecute', timeAdded: secondsFrom(fixedNow, -10) },
      ],
      [exists('untimed', 5), exists('timed', 30)],
      fixedNow,
      20_000,
    ],
    [
      'a taint whose timeAdded does not parse is ignored like one without',
      [{ key: 'key', effect: 'NoExecute', timeAdded: 'yesterday' }],
      [exists('key', 30)],
      fixedNow,
      -1,
    ],
    [
      'the earliest trigger wins across several taints, whichever order',
      [
        { key: 'a', effect: 'NoExecute', timeAdded: secondsFrom(fixedNow, -100) },
        { key: 'b', effect: 'NoExecute', timeAdded: secondsFrom(fixedNow, -50) },
        { key: 'c', effect: 'NoExecute', timeAdded: secondsFrom(fixedNow, -10) },
      ],
      [exists('a', 300), exists('b', 90), exists('c', 60)],
      fixedNow,
      40_000,
    ],
    [
      'a future trigger gives the exact remaining ms',
      [{ key: 'key', effect: 'NoExecute', timeAdded: '2025-09-23T11:59:58.250Z' }],
      [exists('key', 5)],
      fixedNow,
      3_250,
    ],
    [
      'a trigger exactly at now is 0',
      [{ key: 'key', effect: 'NoExecute', timeAdded: secondsFrom(fixedNow, -30) }],
      [exists('key', 30)],
      fixedNow,
      0,
    ],
    [
      'a used toleration counts against every taint it tolerates, not only the one it was used for',
      [
        { key: 'a', effect: 'NoExecute', timeAdded: secondsFrom(fixedNow, -40) },
        { key: 'b', effect: 'NoExecute', timeAdded: secondsFrom(fixedNow, -10) },
      ],
      // As matchingTolerations picks them: the first for a (for ever), the catch-all for b (60 s).
      [exists('a', null), { operator: 'Exists', tolerationSeconds: 60 }],
      fixedNow,
      20_000,
    ],
  ];
  for (const [name, taints, usedTolerations, now, expected] of cases) {
    it(name, () => {
      expect(minTolerationMs(taints, usedTolerations, now)).to.equal(expected);
    });
  }
});

describe('eviction: placement fit (Karmada scheduler TaintToleration filter)', () => {
  const noSchedule: ClusterTaint = { key: 'key1', value: 'value1', effect: 'NoSchedule' };
  const cases: [string, ClusterTaint[], ClusterToleration[], readonly string[] | undefined, boolean][] = [
    ['no taints: fits', [], [], undefined, true],
    [
      'tolerated taint: fits',
      [noSchedule],
      [{ key: 'key1', operator: 'Equal', value: 'value1', effect: 'NoSchedule' }],
      undefined,
      true,
    ],
    ['untolerated taint: does not fit', [noSchedule], [], undefined, false],
    // Our own.
    [
      'an untolerated PreferNoSchedule taint is ignored',
      [{ key: 'k', effect: 'PreferNoSchedule' }],
      [],
      undefined,
      true,
    ],
    [
      'an untolerated NoExecute taint keeps the tenant off',
      [{ key: UNREACHABLE, effect: 'NoExecute' }],
      [],
      undefined,
      false,
    ],
    [
      'every counted taint must be tolerated, not just one',
      [noSchedule, { key: NOT_READY, effect: 'NoExecute' }],
      [{ key: 'key1', operator: 'Exists' }],
      undefined,
      false,
    ],
    [
      'with effects [NoExecute] an untolerated NoSchedule taint is ignored',
      [noSchedule, { key: NOT_READY, effect: 'NoExecute' }],
      [{ key: NOT_READY, operator: 'Exists' }],
      ['NoExecute'],
      true,
    ],
  ];
  for (const [name, taints, tolerations, effects, expected] of cases) {
    it(name, () => {
      expect(tolerates(taints, tolerations, effects)).to.equal(expected);
    });
  }
});
