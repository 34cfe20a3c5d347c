import { expect } from 'chai';
import type { ApiObject } from '../../apiserver/registry/object-store.js';
import { validateCluster, validateClusterName } from '../../clusters/cluster-resource.js';

const cluster = (spec: Record<string, unknown>): ApiObject =>
  ({ apiVersion: 'cluster.karmada.io/v1alpha1', kind: 'Cluster', metadata: { name: 'foo' }, spec }) as ApiObject;

/** Karmada's TestValidateCluster cases (pkg/apis/cluster/validation), those about fields the gateway serves. */
describe('clusters: Cluster validation, as Karmada validates', () => {
  it('accepts a Push cluster with an endpoint, a Secret, a location and taints', () => {
    expect(
      validateCluster(
        cluster({
          syncMode: 'Push',
          apiEndpoint: 'https://10.0.0.2:6443',
          secretRef: { namespace: 'karmada-cluster', name: 'foo' },
          proxyURL: 'socks5://10.0.0.9:1080',
          provider: 'aws',
          region: 'eu-west-1',
          zones: ['eu-west-1a', 'eu-west-1b'],
          taints: [
            { key: 'maintenance', effect: 'NoSchedule' },
            { key: 'maintenance', effect: 'NoExecute' },
          ],
        }),
      ),
    ).to.deep.equal([]);
  });

  const names: [string, string, string[]][] = [
    ['a zero-length name', '', ['must be not empty']],
    [
      'invalid name',
      '^Invalid',
      [
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ],
    ],
    ['a name that is too long', 'a'.repeat(49), ['must be no more than 48 characters']],
  ];
  for (const [title, name, errors] of names)
    it(`refuses ${title}`, () => expect(validateClusterName(name, false)).to.deep.equal(errors));

  const cases: [string, Record<string, unknown>, { field: string; message: string }[]][] = [
    [
      'no sync mode',
      {},
      [
        { field: 'spec.syncMode', message: 'Required value' },
        { field: 'spec.syncMode', message: 'Unsupported value: "": supported values: "Push"' },
      ],
    ],
    [
      'unsupported sync mode',
      { syncMode: '^Invalid' },
      [{ field: 'spec.syncMode', message: 'Unsupported value: "^Invalid": supported values: "Push"' }],
    ],
    [
      'Pull, which only an agent in the cluster can do',
      { syncMode: 'Pull' },
      [{ field: 'spec.syncMode', message: 'Unsupported value: "Pull": supported values: "Push"' }],
    ],
    [
      'invalid apiEndpoint',
      { syncMode: 'Push', apiEndpoint: '^Invalid' },
      [
        {
          field: 'spec.apiEndpoint',
          message:
            'Invalid value: "^Invalid": apiEndpoint must be a valid URL: Invalid URL; desired format: hostname, hostname:port, IP or IP:port',
        },
      ],
    ],
    [
      'apiEndpoint with a query',
      { syncMode: 'Push', apiEndpoint: 'https://h:6443/?a=b' },
      [{ field: 'spec.apiEndpoint', message: 'Invalid value: "a=b": query parameters are not permitted in the URL' }],
    ],
    [
      'empty secretRef',
      { syncMode: 'Push', secretRef: {} },
      [
        { field: 'spec.secretRef.namespace', message: 'Required value' },
        { field: 'spec.secretRef.name', message: 'Required value' },
      ],
    ],
    [
      'empty impersonatorSecretRef',
      { syncMode: 'Push', impersonatorSecretRef: {} },
      [
        { field: 'spec.impersonatorSecretRef.namespace', message: 'Required value' },
        { field: 'spec.impersonatorSecretRef.name', message: 'Required value' },
      ],
    ],
    [
      'invalid proxyURL',
      { syncMode: 'Push', proxyURL: 'ftp://proxy' },
      [
        {
          field: 'spec.proxyURL',
          message: 'Invalid value: "ftp://proxy": unsupported scheme "ftp", must be http, https, or socks5',
        },
      ],
    ],
    [
      'invalid provider',
      { syncMode: 'Push', provider: 'Invalid Provider' },
      [
        {
          field: 'spec.provider',
          message:
            "Invalid value: \"Invalid Provider\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        },
      ],
    ],
    [
      'invalid region',
      { syncMode: 'Push', region: 'Invalid Region' },
      [
        {
          field: 'spec.region',
          message:
            "Invalid value: \"Invalid Region\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        },
      ],
    ],
    [
      'invalid zone',
      { syncMode: 'Push', zone: 'Invalid Zone' },
      [
        {
          field: 'spec.Zone',
          message:
            "Invalid value: \"Invalid Zone\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        },
      ],
    ],
    [
      'invalid zones',
      { syncMode: 'Push', zones: ['Invalid Zone', 'Zone2'] },
      [
        {
          field: 'spec.Zones',
          message:
            "Invalid value: \"Invalid Zone\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        },
      ],
    ],
    [
      'co-existing zones and zone',
      { syncMode: 'Push', zone: 'Zone', zones: ['Zones'] },
      [{ field: 'spec.spec', message: 'Invalid value: "object": Zone and Zones cannot co-exist' }],
    ],
    [
      'unsupported taint effect',
      { syncMode: 'Push', taints: [{ key: 'foo', value: 'bar', effect: '^Invalid' }] },
      [
        {
          field: 'spec.taints[0].effect',
          message: 'Unsupported value: "^Invalid": supported values: "NoSchedule", "NoExecute"',
        },
      ],
    ],
    [
      'a taint without effect',
      { syncMode: 'Push', taints: [{ key: 'foo' }] },
      [{ field: 'spec.taints[0].effect', message: 'Required value' }],
    ],
    [
      'duplicate taints',
      {
        syncMode: 'Push',
        taints: [
          { key: 'foo', effect: 'NoSchedule' },
          { key: 'foo', value: 'x', effect: 'NoSchedule' },
        ],
      },
      [
        {
          field: 'spec.taints[1]',
          message:
            'Duplicate value: {"key":"foo","value":"x","effect":"NoSchedule"}: taints must be unique by key and effect pair',
        },
      ],
    ],
  ];
  for (const [title, spec, causes] of cases)
    it(`refuses ${title}`, () =>
      expect(validateCluster(cluster(spec)).map(({ field, message }) => ({ field, message }))).to.deep.equal(causes));
});
