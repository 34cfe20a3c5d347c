import { expect } from 'chai';
import { decodeTypeError } from '../../apiserver/validation/decode-types.js';

const deployment = () => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [
          {
            name: 'web',
            image: 'nginx:1.27',
            ports: [{ containerPort: 80 }],
            resources: { limits: { cpu: '500m', memory: 128974848 } },
          },
        ],
      },
    },
  },
});

describe('apiserver: JSON types a Go struct cannot decode (decode-types.ts)', () => {
  it('accepts a well-typed object, scalars of every kind included', () => {
    expect(decodeTypeError('apps', 'Deployment', deployment())).to.equal(null);
  });

  it('words a mistyped metadata field as encoding/json does', () => {
    expect(decodeTypeError('', 'ConfigMap', { metadata: { name: 'c', labels: { a: 1 } } })).to.equal(
      'json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string',
    );
  });

  it("refuses a struct, list or map of the kind's schema given another JSON type, at any depth", () => {
    const cases: [string, (d: ReturnType<typeof deployment>) => void, string][] = [
      [
        'spec a number',
        (d) => ((d as any).spec = 2.6e132),
        'json: cannot unmarshal number into Go struct field Deployment.spec of type struct',
      ],
      [
        'containers a string',
        (d) => ((d.spec.template.spec as any).containers = 'web'),
        'json: cannot unmarshal string into Go struct field Deployment.spec.template.spec.containers of type slice',
      ],
      [
        'a container an array',
        (d) => ((d.spec.template.spec as any).containers = [[]]),
        'json: cannot unmarshal array into Go struct field Deployment.spec.template.spec.containers of type struct',
      ],
      [
        'matchLabels a list',
        (d) => ((d.spec.selector as any).matchLabels = ['app']),
        'json: cannot unmarshal array into Go struct field Deployment.spec.selector.matchLabels of type map',
      ],
    ];
    for (const [what, mistype, message] of cases) {
      const d = deployment();
      mistype(d);
      expect(decodeTypeError('apps', 'Deployment', d), what).to.equal(message);
    }
  });

  it('leaves kinds without a schema (custom resources) to their own validation', () => {
    expect(decodeTypeError('stable.example.com', 'CronTab', { metadata: { name: 'c' }, spec: 5 })).to.equal(null);
  });
});
