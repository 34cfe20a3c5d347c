/**
 * kube-apiserver 1.32's validation of ephemeral containers (apiserver/validation/kinds/pod.ts),
 * with the cases of kube's TestValidateEphemeralContainers ported: each list of ephemeral containers
 * is written through the `ephemeralcontainers` subresource of a pod with an app container `ctr` and
 * the volumes `vol` and `blk`, and the causes are compared by field and reason, as kube compares them.
 */
import { expect } from 'chai';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { builtinValidator } from '../../apiserver/validation/kinds/builtin-kinds.js';

type Json = Record<string, any>;

const validatePod = builtinValidator('', 'Pod')!;

function pod(ephemeralContainers?: Json[], annotations?: Record<string, string>): ApiObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', ...(annotations ? { annotations } : {}) },
    spec: {
      containers: [{ name: 'ctr', image: 'image', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File' }],
      volumes: [
        { name: 'vol', emptyDir: {} },
        { name: 'blk', persistentVolumeClaim: { claimName: 'claim' } },
      ],
      ...(ephemeralContainers ? { ephemeralContainers } : {}),
    },
  } as ApiObject;
}

/** An ephemeral container as kube's cases write one: valid unless `extra` says otherwise. */
const debug = (extra: Json = {}): Json => ({
  name: 'debug',
  image: 'image',
  imagePullPolicy: 'IfNotPresent',
  terminationMessagePolicy: 'File',
  ...extra,
});

/** The causes of adding `added` to a pod that had `before`, as `field reason`. */
function added(added: Json[], before: Json[] = [], annotations?: Record<string, string>): string[] {
  return validatePod(pod([...before, ...added], annotations), pod(before, annotations), 'ephemeralcontainers').map(
    (cause) => `${cause.field} ${cause.reason}`,
  );
}

const AT = 'spec.ephemeralContainers';

describe('devcluster: ephemeral containers validated as kube 1.32 (pods/ephemeralcontainers)', () => {
  describe("kube's success cases", () => {
    const cases: [string, Json[]][] = [
      ['Empty Ephemeral Containers', []],
      ['Single Container', [debug()]],
      ['Multiple Containers', [debug({ name: 'debug1' }), debug({ name: 'debug2' })]],
      ['Single Container with Target', [debug({ targetContainerName: 'ctr' })]],
      [
        'All allowed fields',
        [
          debug({
            command: ['bash'],
            args: ['bash'],
            workingDir: '/',
            envFrom: [{ configMapRef: { name: 'dummy', optional: true } }],
            env: [{ name: 'TEST', value: 'TRUE' }],
            volumeMounts: [{ name: 'vol', mountPath: '/vol' }],
            volumeDevices: [{ name: 'blk', devicePath: '/dev/block' }],
            terminationMessagePath: '/dev/termination-log',
            securityContext: { capabilities: { add: ['SYS_ADMIN'] } },
            stdin: true,
            stdinOnce: true,
            tty: true,
            // A container's defaults leave an empty resources, which counts as unset.
            resources: {},
          }),
        ],
      ],
    ];
    for (const [title, containers] of cases) it(title, () => expect(added(containers)).to.deep.equal([]));
  });

  describe("kube's failure cases", () => {
    const exec = { exec: { command: ['ls', '-l'] } };
    const tcp = { tcpSocket: { port: 80 } };
    const cases: [string, Json[], string[]][] = [
      [
        'Name Collision with EphemeralContainers',
        [debug({ name: 'debug1' }), debug({ name: 'debug1' })],
        [`${AT}[1].name FieldValueDuplicate`],
      ],
      [
        'empty Container',
        [{}],
        [
          `${AT}[0].name FieldValueRequired`,
          `${AT}[0].image FieldValueRequired`,
          `${AT}[0].terminationMessagePolicy FieldValueRequired`,
          `${AT}[0].imagePullPolicy FieldValueRequired`,
        ],
      ],
      ['empty Container Name', [debug({ name: '' })], [`${AT}[0].name FieldValueRequired`]],
      ['whitespace padded image name', [debug({ image: ' image' })], [`${AT}[0].image FieldValueInvalid`]],
      [
        'invalid image pull policy',
        [debug({ imagePullPolicy: 'PullThreeTimes' })],
        [`${AT}[0].imagePullPolicy FieldValueNotSupported`],
      ],
      [
        'Container uses disallowed field: Lifecycle',
        [debug({ lifecycle: { preStop: exec } })],
        [`${AT}[0].lifecycle FieldValueForbidden`],
      ],
      [
        'Container uses disallowed field: LivenessProbe',
        [debug({ livenessProbe: { ...tcp, successThreshold: 1 } })],
        [`${AT}[0].livenessProbe FieldValueForbidden`],
      ],
      [
        'Container uses disallowed field: Ports',
        [debug({ ports: [{ protocol: 'TCP', containerPort: 80 }] })],
        [`${AT}[0].ports FieldValueForbidden`],
      ],
      [
        'Container uses disallowed field: ReadinessProbe',
        [debug({ readinessProbe: tcp })],
        [`${AT}[0].readinessProbe FieldValueForbidden`],
      ],
      [
        'Container uses disallowed field: StartupProbe',
        [debug({ startupProbe: { ...tcp, successThreshold: 1 } })],
        [`${AT}[0].startupProbe FieldValueForbidden`],
      ],
      [
        'Container uses disallowed field: Resources',
        [debug({ resources: { limits: { cpu: '10' } } })],
        [`${AT}[0].resources FieldValueForbidden`],
      ],
      [
        'Container uses disallowed field: VolumeMount.SubPath',
        [
          debug({
            volumeMounts: [
              { name: 'vol', mountPath: '/vol' },
              { name: 'vol', mountPath: '/volsub', subPath: 'foo' },
            ],
          }),
        ],
        [`${AT}[0].volumeMounts[1].subPath FieldValueForbidden`],
      ],
      [
        'Container uses disallowed field: VolumeMount.SubPathExpr',
        [
          debug({
            volumeMounts: [
              { name: 'vol', mountPath: '/vol' },
              { name: 'vol', mountPath: '/volsub', subPathExpr: '$(POD_NAME)' },
            ],
          }),
        ],
        [`${AT}[0].volumeMounts[1].subPathExpr FieldValueForbidden`],
      ],
      [
        'Disallowed field with other errors should only return a single Forbidden',
        [debug({ lifecycle: { preStop: { exec: { command: [] } } } })],
        [`${AT}[0].lifecycle FieldValueForbidden`],
      ],
      [
        'Container uses disallowed field: ResizePolicy',
        [
          debug({
            name: 'resources-resize-policy',
            resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
          }),
        ],
        [`${AT}[0].resizePolicy FieldValueForbidden`],
      ],
      ...['Always', 'OnFailure', 'Never', 'invalid', ''].map((policy): [string, Json[], string[]] => [
        `Forbidden RestartPolicy: ${policy || 'empty'}`,
        [debug({ name: 'foo', restartPolicy: policy })],
        [`${AT}[0].restartPolicy FieldValueForbidden`],
      ]),
    ];
    for (const [title, containers, expected] of cases)
      it(title, () => expect(added(containers)).to.deep.equal(expected));
  });

  describe('updates (ValidatePodEphemeralContainersUpdate)', () => {
    it('adds to the ephemeral containers there are', () => {
      expect(added([debug({ name: 'debug2' })], [debug()])).to.deep.equal([]);
    });

    it('refuses removing or changing one, whatever else the write adds', () => {
      const write = (next: Json[], before: Json[]) =>
        validatePod(pod(next), pod(before), 'ephemeralcontainers').map((c) => `${c.field}: ${c.message}`);
      expect(write([debug({ name: 'debug2' })], [debug()])).to.deep.equal([
        `${AT}: Forbidden: existing ephemeral containers "debug" may not be removed\n`,
      ]);
      expect(write([debug({ image: 'other' })], [debug()])).to.deep.equal([
        `${AT}[debug]: Forbidden: existing ephemeral containers "debug" may not be changed\n`,
      ]);
    });

    it('names an app or init container as its target, and none of theirs as its name', () => {
      expect(added([debug({ name: 'ctr', targetContainerName: 'nope' })])).to.deep.equal([
        `${AT}[0].name FieldValueDuplicate`,
        `${AT}[0].targetContainerName FieldValueNotFound`,
      ]);
    });

    it('refuses any on a static pod', () => {
      expect(added([debug()], [], { 'kubernetes.io/config.mirror': 'hash' })).to.deep.equal([' FieldValueForbidden']);
    });

    it('refuses them on create and through an update of the pod itself, and leaves status writes alone', () => {
      expect(validatePod(pod([debug()])).map((c) => c.field)).to.deep.equal([AT]);
      expect(validatePod(pod([debug()]), pod([]), '').map((c) => `${c.field} ${c.reason}`)).to.deep.equal([
        'spec FieldValueForbidden',
      ]);
      expect(validatePod(pod([debug()]), pod([debug()]), '')).to.deep.equal([]);
      expect(validatePod(pod([debug()]), pod([]), 'status')).to.deep.equal([]);
    });
  });
});
