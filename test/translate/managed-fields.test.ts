import { expect } from 'chai';
import { patchMetaFor, type PatchMetaTree } from '../../apiserver/patch/patch-meta.js';
import { BUILTIN_RESOURCES } from '../../apiserver/resources/builtin.js';
import { tenantContext } from '../../translate/context.js';
import { objectDown, objectUp } from '../../translate/objects.js';
import { kindScope } from '../support/kind-scope.js';

type Json = Record<string, any>;

const ctx = tenantContext('aaaaaa', kindScope());

/**
 * The list keys of built-in kinds, which fieldsV1 spells out as `k:{"<key>":<value>}`: container
 * and volume names, ports, IPs, paths, condition types, owner uids. None of them is a value the
 * gateway prefixes (namespaces, cluster-scoped names, CRD groups, identities), so fieldsV1 means
 * the same up and down and crosses unchanged (docs/translate.md, "managedFields").
 */
const KEYS_THE_GATEWAY_NEVER_REWRITES = [
  'containerPort',
  'devicePath',
  'ip',
  'mountPath',
  'name',
  'port',
  'topologyKey',
  'type',
  'uid',
];

function mergeKeysOf(tree: PatchMetaTree, found: Set<string>): Set<string> {
  for (const meta of Object.values(tree)) {
    if (meta.mergeKey) found.add(meta.mergeKey);
    if (meta.fields) mergeKeysOf(meta.fields, found);
  }
  return found;
}

describe('translate: managedFields', () => {
  it('no built-in kind keys a list by a field the conversion rewrites (a new key needs a decision here)', () => {
    const keys = new Set<string>();
    for (const resource of BUILTIN_RESOURCES) mergeKeysOf(patchMetaFor(resource.group, resource.kind), keys);
    expect([...keys].sort()).to.deep.equal(KEYS_THE_GATEWAY_NEVER_REWRITES);
  });

  it('fieldsV1 crosses unchanged both ways; the entry apiVersion follows the CRD group', () => {
    const fieldsV1 = {
      'f:metadata': { 'f:labels': { 'f:app': {} }, 'f:ownerReferences': { 'k:{"uid":"u-1"}': {} } },
      'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {} } } },
    };
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'web',
        namespace: 'default',
        managedFields: [{ manager: 'kubectl', operation: 'Apply', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1 }],
      },
    };
    const up = objectUp(ctx, pod);
    expect(up.metadata.namespace).to.equal('aaaaaa-default');
    expect(up.metadata.managedFields[0].fieldsV1).to.deep.equal(fieldsV1);
    expect(objectDown(ctx, up)!.metadata.managedFields).to.deep.equal(pod.metadata.managedFields);

    const cronTab: Json = {
      apiVersion: 'stable.example.com/v1',
      kind: 'CronTab',
      metadata: {
        name: 'nightly',
        namespace: 'default',
        managedFields: [
          {
            manager: 'kubectl',
            operation: 'Apply',
            apiVersion: 'stable.example.com/v1',
            fieldsType: 'FieldsV1',
            fieldsV1,
          },
        ],
      },
    };
    const custom = objectUp(ctx, cronTab);
    expect(custom.metadata.managedFields[0]).to.deep.include({ apiVersion: 'aaaaaa-stable.example.com/v1', fieldsV1 });
    expect(objectDown(ctx, custom)!.metadata.managedFields).to.deep.equal(cronTab.metadata.managedFields);
  });
});
