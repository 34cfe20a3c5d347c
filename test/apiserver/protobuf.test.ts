import { expect } from 'chai';
import fc from 'fast-check';
import { decodeKubernetesProtobuf, ProtobufDecodeError } from '../../apiserver/protobuf/decode.js';
import { MESSAGES, TOP_LEVEL_MESSAGES } from '../../apiserver/protobuf/schema.js';
import { PROTOBUF, startCaptureServer, type CaptureServer } from '../support/kubectl-protobuf-capture.js';
import { envelope, intField, lenField, mapEntry, message, tag, varint } from '../support/protobuf-wire.js';
import { testSeed } from '../support/seed.js';
import { withoutEmpties } from '../support/without-empties.js';

interface GeneratorCase {
  args: string[];
  /** Where kubectl posts the body. */
  path: string;
  expected: Record<string, unknown>;
  /** Whether `--dry-run=client -o json` prints the same object, a second witness of the decoding. */
  hasDryRun: boolean;
}

const CASES: GeneratorCase[] = [
  {
    args: ['create', 'namespace', 'x'],
    path: '/api/v1/namespaces',
    expected: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } },
    hasDryRun: true,
  },
  {
    args: ['create', 'deployment', 'web', '--image=nginx:1.27', '--replicas=3', '--port=80'],
    path: '/apis/apps/v1/namespaces/default/deployments',
    expected: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', labels: { app: 'web' } },
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }] },
        },
      },
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'configmap', 'c', '--from-literal=a=b'],
    path: '/api/v1/namespaces/default/configmaps',
    expected: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: 'b' } },
    hasDryRun: true,
  },
  {
    args: ['create', 'secret', 'generic', 's', '--from-literal=p=q'],
    path: '/api/v1/namespaces/default/secrets',
    expected: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's' },
      data: { p: Buffer.from('q').toString('base64') },
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'serviceaccount', 'sa'],
    path: '/api/v1/namespaces/default/serviceaccounts',
    expected: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' } },
    hasDryRun: true,
  },
  {
    args: ['create', 'role', 'r', '--verb=get', '--resource=pods'],
    path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles',
    expected: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'r' },
      rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }],
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'rolebinding', 'rb', '--role=r', '--user=alice', '--serviceaccount=default:sa'],
    path: '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
    expected: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb' },
      subjects: [
        { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' },
        { kind: 'ServiceAccount', name: 'sa', namespace: 'default' },
      ],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'clusterrole', 'cr', '--verb=list', '--resource=nodes'],
    path: '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    expected: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: 'cr' },
      rules: [{ verbs: ['list'], apiGroups: [''], resources: ['nodes'] }],
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'clusterrolebinding', 'crb', '--clusterrole=cr', '--group=devs'],
    path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
    expected: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: 'crb' },
      subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'devs' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cr' },
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'quota', 'q', '--hard=pods=10,cpu=2'],
    path: '/api/v1/namespaces/default/resourcequotas',
    expected: {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'q' },
      spec: { hard: { pods: '10', cpu: '2' } },
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'job', 'j', '--image=busybox', '--', 'echo', 'hi'],
    path: '/apis/batch/v1/namespaces/default/jobs',
    expected: {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j' },
      spec: {
        template: {
          spec: { containers: [{ name: 'j', image: 'busybox', command: ['echo', 'hi'] }], restartPolicy: 'Never' },
        },
      },
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'cronjob', 'cj', '--image=busybox', '--schedule=*/5 * * * *', '--', 'echo', 'hi'],
    path: '/apis/batch/v1/namespaces/default/cronjobs',
    expected: {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'cj' },
      spec: {
        schedule: '*/5 * * * *',
        jobTemplate: {
          metadata: { name: 'cj' },
          spec: {
            template: {
              spec: {
                containers: [{ name: 'cj', image: 'busybox', command: ['echo', 'hi'] }],
                restartPolicy: 'OnFailure',
              },
            },
          },
        },
      },
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'priorityclass', 'pc', '--value=1000'],
    path: '/apis/scheduling.k8s.io/v1/priorityclasses',
    expected: {
      apiVersion: 'scheduling.k8s.io/v1',
      kind: 'PriorityClass',
      metadata: { name: 'pc' },
      value: 1000,
      preemptionPolicy: 'PreemptLowerPriority',
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'poddisruptionbudget', 'pdb', '--selector=app=web', '--min-available=1'],
    path: '/apis/policy/v1/namespaces/default/poddisruptionbudgets',
    expected: {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'pdb' },
      spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } },
      // Go's JSON prints these zeros (no omitempty); the devcluster drops a created object's status.
      status: { currentHealthy: 0, desiredHealthy: 0, disruptionsAllowed: 0, expectedPods: 0 },
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'ingress', 'ing', '--rule=foo.com/bar=svc:80'],
    path: '/apis/networking.k8s.io/v1/namespaces/default/ingresses',
    expected: {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'ing' },
      spec: {
        rules: [
          {
            host: 'foo.com',
            http: {
              paths: [{ path: '/bar', pathType: 'Exact', backend: { service: { name: 'svc', port: { number: 80 } } } }],
            },
          },
        ],
      },
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'service', 'clusterip', 'svc', '--tcp=80:8080'],
    path: '/api/v1/namespaces/default/services',
    expected: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'svc', labels: { app: 'svc' } },
      spec: {
        ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }],
        selector: { app: 'svc' },
        type: 'ClusterIP',
      },
    },
    hasDryRun: true,
  },
  {
    args: ['create', 'token', 'sa', '--duration=1h', '--audience=aud1'],
    path: '/api/v1/namespaces/default/serviceaccounts/sa/token',
    expected: {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { audiences: ['aud1'], expirationSeconds: 3600 },
    },
    hasDryRun: false,
  },
  {
    args: ['auth', 'can-i', 'create', 'pods'],
    path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
    expected: {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { namespace: 'default', verb: 'create', resource: 'pods' } },
    },
    hasDryRun: false,
  },
  {
    args: ['auth', 'can-i', '--list'],
    path: '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews',
    expected: { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'default' } },
    hasDryRun: false,
  },
  {
    args: ['auth', 'whoami'],
    path: '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    expected: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
    hasDryRun: false,
  },
];

function decodeError(body: Buffer): ProtobufDecodeError {
  try {
    decodeKubernetesProtobuf(body);
  } catch (err) {
    expect(err).to.be.instanceOf(ProtobufDecodeError);
    return err as ProtobufDecodeError;
  }
  throw new Error('expected a ProtobufDecodeError');
}

describe('Kubernetes protobuf request bodies', () => {
  describe('captured from the real kubectl 1.32', function () {
    this.timeout(120_000);
    let capture: CaptureServer;
    const bodies = new Map<GeneratorCase, Buffer>();

    before(async () => {
      capture = await startCaptureServer();
      for (const generator of CASES) {
        const post = await capture.post(generator.args);
        expect([post.path, post.contentType]).to.deep.equal([generator.path, PROTOBUF]);
        bodies.set(generator, post.body);
      }
    });

    after(async () => {
      await capture?.close();
    });

    for (const generator of CASES) {
      it(`decodes kubectl ${generator.args.join(' ')}`, () => {
        const decoded = decodeKubernetesProtobuf(bodies.get(generator)!);
        expect(decoded.apiVersion).to.equal(generator.expected.apiVersion);
        expect(decoded.kind).to.equal(generator.expected.kind);
        expect(decoded.object).to.deep.equal(generator.expected);
      });
    }

    it("matches kubectl's own JSON of the same object (--dry-run=client -o json)", async () => {
      for (const generator of CASES.filter((c) => c.hasDryRun)) {
        // The flags go before `--`, after which everything is the container's command.
        const args = [...generator.args];
        const commandStart = args.includes('--') ? args.indexOf('--') : args.length;
        args.splice(commandStart, 0, '--dry-run=client', '-o', 'json');
        const printed = JSON.parse(await capture.kubectl(args)) as Record<string, unknown>;
        expect(decodeKubernetesProtobuf(bodies.get(generator)!).object, generator.args.join(' ')).to.deep.equal(
          withoutEmpties(printed),
        );
      }
    });

    it('answers every truncation of a real body with an object or a ProtobufDecodeError, never another error', () => {
      for (const body of bodies.values()) {
        for (let length = 0; length < body.length; length++) {
          try {
            decodeKubernetesProtobuf(body.subarray(0, length));
          } catch (err) {
            expect(err, `${length} of ${body.length} bytes`).to.be.instanceOf(ProtobufDecodeError);
          }
        }
      }
    });

    it('answers corrupted real bodies with an object or a ProtobufDecodeError, never another error', () => {
      const realBodies = [...bodies.values()];
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: realBodies.length - 1 }),
          fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
          (which, edits) => {
            const body = Buffer.from(realBodies[which]);
            // The magic stays intact so that corruption reaches the wire decoder.
            for (const [position, byte] of edits) body[4 + (position % (body.length - 4))] = byte;
            try {
              expect(decodeKubernetesProtobuf(body).object).to.be.an('object');
            } catch (err) {
              if (!(err instanceof ProtobufDecodeError)) throw err;
            }
          },
        ),
        { seed: testSeed(import.meta.url, 20251129).seed, numRuns: 2000 },
      );
    });
  });

  describe('envelope', () => {
    const namespace = message(lenField(1, message(lenField(1, 'x'))));

    it('rejects a body without the k8s\\0 magic, such as JSON', () => {
      expect(decodeError(Buffer.from('{"kind":"Namespace"}')).message).to.match(/does not start with "k8s\\0"/);
      expect(decodeError(Buffer.from('k8s')).message).to.match(/does not start with/);
    });

    it('names the kind and its apiVersion when the kind is not supported', () => {
      const error = decodeError(envelope('example.com/v1', 'Foo', message()));
      expect(error.message).to.equal(
        'protobuf bodies of kind "Foo" (apiVersion "example.com/v1") are not supported; send JSON',
      );
    });

    it('does not take a known kind in another apiVersion for the one it knows', () => {
      const error = decodeError(envelope('apps/v1beta1', 'Deployment', message()));
      expect(error.message).to.match(/kind "Deployment" \(apiVersion "apps\/v1beta1"\)/);
    });

    it('rejects an envelope without apiVersion and kind', () => {
      const body = Buffer.concat([Buffer.from('k8s\0', 'latin1'), lenField(2, namespace)]);
      expect(decodeError(body).message).to.match(/names no apiVersion and kind/);
    });

    it('rejects an encoded raw object', () => {
      expect(decodeError(envelope('v1', 'Namespace', namespace, lenField(3, 'gzip'))).message).to.match(
        /contentEncoding "gzip"/,
      );
    });

    it('accepts an empty contentEncoding and ignores contentType, as kubectl sends them', () => {
      const decoded = decodeKubernetesProtobuf(
        envelope('v1', 'Namespace', namespace, lenField(3, ''), lenField(4, '')),
      );
      expect(decoded).to.deep.equal({
        apiVersion: 'v1',
        kind: 'Namespace',
        object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x' } },
      });
    });
  });

  describe('malformed wire data', () => {
    const decodeRaw = (raw: Buffer) => decodeError(envelope('v1', 'Namespace', raw)).message;

    it('rejects a length that runs past the end', () => {
      expect(decodeRaw(Buffer.concat([tag(1, 2), varint(50), Buffer.from('short')]))).to.match(
        /malformed.*runs past the end/,
      );
    });

    it('rejects a truncated varint', () => {
      expect(decodeRaw(Buffer.concat([tag(99, 0), Buffer.from([0x80])]))).to.match(/malformed.*truncated varint/);
    });

    it('rejects a varint longer than ten bytes', () => {
      expect(decodeRaw(Buffer.concat([tag(99, 0), Buffer.alloc(11, 0x80), Buffer.from([0])]))).to.match(
        /malformed.*longer than ten bytes/,
      );
    });

    it('rejects field number 0 and group wire types', () => {
      expect(decodeRaw(Buffer.from([0x02, 0x00]))).to.match(/malformed.*invalid field number 0/);
      expect(decodeRaw(tag(7, 3))).to.match(/malformed.*group wire type/);
      expect(decodeRaw(tag(7, 6))).to.match(/malformed.*invalid wire type 6/);
    });

    it('rejects a known field sent with the wrong wire type', () => {
      const nameAsVarint = message(lenField(1, message(intField(1, 5))));
      expect(decodeRaw(nameAsVarint)).to.match(/ObjectMeta\.name has wire type Varint, expected LengthDelimited/);
    });

    it('rejects an int64 that JSON cannot carry exactly', () => {
      const generation = message(lenField(1, message(lenField(1, 'x'), intField(7, 2n ** 60n))));
      expect(decodeRaw(generation)).to.match(/ObjectMeta\.generation is 1152921504606846976/);
    });

    it('rejects a time outside the years 0001 to 9999', () => {
      const deletion = message(lenField(1, message(lenField(9, message(intField(1, 253402300800))))));
      expect(decodeRaw(deletion)).to.match(/outside years 0001 to 9999/);
    });
  });

  describe('field semantics beyond what the generators send', () => {
    const decode = (apiVersion: string, kind: string, raw: Buffer) =>
      decodeKubernetesProtobuf(envelope(apiVersion, kind, raw)).object;

    it('skips unknown fields of every wire type', () => {
      const meta = message(
        intField(90, 7),
        Buffer.concat([tag(91, 1), Buffer.alloc(8, 0xff)]),
        lenField(92, 'ignored'),
        Buffer.concat([tag(93, 5), Buffer.alloc(4, 0xff)]),
        lenField(1, 'x'),
      );
      expect(
        decode('v1', 'Namespace', message(lenField(1, meta), lenField(30, message(lenField(1, 'x'))))),
      ).to.deep.equal({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'x' },
      });
    });

    it('reads metadata: maps, owner references, finalizers, times and pointer fields set to zero', () => {
      const meta = message(
        lenField(2, 'gen-'),
        lenField(3, 'team-a'),
        intField(7, 4),
        lenField(8, message()),
        lenField(9, message(intField(1, 1700000000), intField(2, 5))),
        intField(10, 0),
        mapEntry(11, 'app', 'web'),
        mapEntry(11, 'tier', 'front'),
        mapEntry(12, 'note', ''),
        lenField(
          13,
          message(
            lenField(5, 'apps/v1'),
            lenField(1, 'ReplicaSet'),
            lenField(3, 'rs'),
            lenField(4, 'u-1'),
            intField(6, 1),
          ),
        ),
        lenField(14, 'example.com/cleanup'),
      );
      expect(decode('v1', 'ConfigMap', message(lenField(1, meta))).metadata).to.deep.equal({
        generateName: 'gen-',
        namespace: 'team-a',
        generation: 4,
        deletionTimestamp: '2023-11-14T22:13:20Z',
        deletionGracePeriodSeconds: 0,
        labels: { app: 'web', tier: 'front' },
        annotations: { note: '' },
        ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u-1', controller: true }],
        finalizers: ['example.com/cleanup'],
      });
    });

    it('keeps a "__proto__" map key as an ordinary key, as JSON.parse does', () => {
      const meta = message(mapEntry(11, '__proto__', 'x'), mapEntry(11, 'a', 'b'));
      const { labels } = decode('v1', 'Namespace', message(lenField(1, meta))).metadata as {
        labels: Record<string, string>;
      };
      expect(Object.getPrototypeOf(labels)).to.equal(Object.prototype);
      expect(Object.entries(labels)).to.deep.equal([
        ['__proto__', 'x'],
        ['a', 'b'],
      ]);
    });

    it('keeps pointer fields that are present even when zero, and drops zero omitempty fields', () => {
      const spec = message(intField(1, 0), lenField(4, message(lenField(1, ''))), intField(5, 0), intField(7, 0));
      expect(decode('apps/v1', 'Deployment', message(lenField(2, spec))).spec).to.deep.equal({ replicas: 0 });
    });

    it('sign-extends negative int32 values', () => {
      expect(decode('scheduling.k8s.io/v1', 'PriorityClass', message(intField(2, -5))).value).to.equal(-5);
    });

    it('reads IntOrString as a number or a string by its type', () => {
      const spec = message(
        lenField(1, message(intField(1, 1), lenField(3, '50%'))),
        lenField(3, message(intField(1, 0), intField(2, 2))),
      );
      expect(decode('policy/v1', 'PodDisruptionBudget', message(lenField(2, spec))).spec).to.deep.equal({
        minAvailable: '50%',
        maxUnavailable: 2,
      });
    });

    it('encodes bytes as base64 and gives a map entry without a value its zero value', () => {
      const secret = message(
        mapEntry(2, 'bin', Buffer.from([0, 255, 10])),
        mapEntry(2, 'empty'),
        mapEntry(4, 'plain', 'text'),
        lenField(3, 'Opaque'),
      );
      expect(decode('v1', 'Secret', secret)).to.deep.include({
        data: { bin: 'AP8K', empty: '' },
        stringData: { plain: 'text' },
        type: 'Opaque',
      });
    });

    it('inlines embedded structs and keeps a present empty volume source', () => {
      const configMapKeyRef = message(lenField(1, message(lenField(1, 'cfg'))), lenField(2, 'level'));
      const container = message(
        lenField(1, 'app'),
        lenField(7, message(lenField(1, 'LEVEL'), lenField(3, message(lenField(3, configMapKeyRef))))),
        lenField(8, message(mapEntry(1, 'memory', message(lenField(1, '64Mi'))))),
        lenField(9, message(lenField(1, 'scratch'), lenField(3, '/tmp'))),
      );
      const emptyDirVolume = message(lenField(1, 'scratch'), lenField(2, message(lenField(2, message()))));
      const podSpec = message(lenField(1, emptyDirVolume), lenField(2, container));
      const jobSpec = message(lenField(6, message(lenField(2, podSpec))));
      expect(decode('batch/v1', 'Job', message(lenField(2, jobSpec))).spec).to.deep.equal({
        template: {
          spec: {
            volumes: [{ name: 'scratch', emptyDir: {} }],
            containers: [
              {
                name: 'app',
                env: [{ name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'level' } } }],
                resources: { limits: { memory: '64Mi' } },
                volumeMounts: [{ name: 'scratch', mountPath: '/tmp' }],
              },
            ],
          },
        },
      });
    });

    it("reads an ephemeral volume's claim template (translation rewrites it, so the decoder knows it too)", () => {
      const claimSpec = message(
        lenField(1, 'ReadWriteOnce'),
        lenField(2, message(mapEntry(2, 'storage', message(lenField(1, '1Gi'))))),
        lenField(5, 'fast'),
        lenField(8, message(lenField(2, 'VolumeSnapshot'), lenField(3, 'snap'), lenField(4, 'dev'))),
      );
      const template = message(lenField(1, message(mapEntry(11, 'app', 'db'))), lenField(2, claimSpec));
      const volume = message(lenField(1, 'data'), lenField(2, message(lenField(29, message(lenField(1, template))))));
      const jobSpec = message(lenField(6, message(lenField(2, message(lenField(1, volume))))));
      expect(decode('batch/v1', 'Job', message(lenField(2, jobSpec))).spec).to.deep.equal({
        template: {
          spec: {
            volumes: [
              {
                name: 'data',
                ephemeral: {
                  volumeClaimTemplate: {
                    metadata: { labels: { app: 'db' } },
                    spec: {
                      accessModes: ['ReadWriteOnce'],
                      resources: { requests: { storage: '1Gi' } },
                      storageClassName: 'fast',
                      dataSourceRef: { kind: 'VolumeSnapshot', name: 'snap', namespace: 'dev' },
                    },
                  },
                },
              },
            ],
          },
        },
      });
    });

    it('skips what the server owns: managedFields, and the status of a review', () => {
      const meta = message(lenField(1, 'x'), lenField(17, message(lenField(3, 'v1'))));
      expect(decode('v1', 'Namespace', message(lenField(1, meta))).metadata).to.deep.equal({ name: 'x' });
      const status = message(lenField(1, message(lenField(1, 'alice'))));
      expect(decode('authentication.k8s.io/v1', 'SelfSubjectReview', message(lenField(2, status)))).to.deep.equal({
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'SelfSubjectReview',
      });
    });

    it('reads a SubjectAccessReview with user, groups and extra as lists', () => {
      const spec = message(
        lenField(2, message(lenField(1, '/healthz'), lenField(2, 'get'))),
        lenField(3, 'bob'),
        lenField(4, 'devs'),
        lenField(4, 'ops'),
        mapEntry(5, 'scopes', message(lenField(1, 'a'), lenField(1, 'b'))),
      );
      expect(decode('authorization.k8s.io/v1', 'SubjectAccessReview', message(lenField(2, spec))).spec).to.deep.equal({
        nonResourceAttributes: { path: '/healthz', verb: 'get' },
        user: 'bob',
        groups: ['devs', 'ops'],
        extra: { scopes: ['a', 'b'] },
      });
    });
  });

  describe('schema', () => {
    it('defines every message that a field or a top-level kind refers to', () => {
      const scalars = new Set(['string', 'bytes', 'int32', 'int64', 'bool', 'double']);
      const referenced = [
        ...TOP_LEVEL_MESSAGES.values(),
        ...Object.values(MESSAGES).flatMap((spec) => Object.values(spec).map((field) => field.type)),
      ].filter((type) => !scalars.has(type));
      expect(referenced.filter((type) => !(type in MESSAGES))).to.deep.equal([]);
    });

    it('gives metadata field number 1 in every top-level kind that has metadata', () => {
      const withMetadata = [...TOP_LEVEL_MESSAGES.values()].filter((name) =>
        Object.values(MESSAGES[name]).some((field) => field.name === 'metadata'),
      );
      // The others are the options kinds (PodExecOptions…, read from the query) and webhook reviews.
      expect(withMetadata.length).to.be.greaterThan(50);
      for (const name of withMetadata) expect(MESSAGES[name][1]?.name, name).to.equal('metadata');
    });
  });
});
