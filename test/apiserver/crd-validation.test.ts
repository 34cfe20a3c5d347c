import { expect } from 'chai';
import { resourceInfoFromCRD, validateCRD } from '../../apiserver/resources/custom-resource.js';

const SCHEMA = { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object' } } } };

function widgetCRD(): any {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: {
        plural: 'widgets',
        singular: 'widget',
        kind: 'Widget',
        listKind: 'WidgetList',
        shortNames: ['wd'],
        categories: ['all'],
      },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: SCHEMA,
          subresources: {
            status: {},
            scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' },
          },
        },
        { name: 'v1beta1', served: true, storage: false, schema: SCHEMA },
        { name: 'v1alpha1', served: false, storage: false, schema: SCHEMA },
      ],
    },
  };
}

/** `field: message`, as kubectl prints each cause. */
function printed(crd: unknown): string[] {
  return validateCRD(crd).map((c) => `${c.field}: ${c.message}`);
}

describe('CRD validation', () => {
  it('accepts a well-formed CRD', () => {
    expect(validateCRD(widgetCRD())).to.deep.equal([]);
  });

  it('requires metadata.name to be <plural>.<group>', () => {
    const crd = widgetCRD();
    crd.metadata.name = 'gadgets.example.com';
    expect(validateCRD(crd)).to.deep.equal([
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
        message: 'Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group',
      },
    ]);
  });

  it('requires a group that is a DNS subdomain with a dot', () => {
    const crd = widgetCRD();
    crd.spec.group = 'example';
    crd.metadata.name = 'widgets.example';
    expect(printed(crd)).to.deep.equal([
      'spec.group: Invalid value: "example": should be a domain with at least one dot',
    ]);
    crd.spec.group = 'Example.com';
    crd.metadata.name = 'widgets.Example.com';
    expect(printed(crd)[0]).to.match(
      /^spec\.group: Invalid value: "Example\.com": a lowercase RFC 1123 subdomain must consist of/,
    );
    delete crd.spec.group;
    crd.metadata.name = 'widgets.';
    expect(printed(crd)).to.deep.equal(['spec.group: Required value']);
  });

  it('requires the scope to be Namespaced or Cluster', () => {
    const crd = widgetCRD();
    crd.spec.scope = 'Global';
    expect(validateCRD(crd)).to.deep.equal([
      {
        reason: 'FieldValueNotSupported',
        field: 'spec.scope',
        message: 'Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
      },
    ]);
    delete crd.spec.scope;
    expect(printed(crd)).to.deep.equal(['spec.scope: Required value']);
  });

  it('requires exactly one storage version', () => {
    const crd = widgetCRD();
    crd.spec.versions[1].storage = true;
    const causes = validateCRD(crd);
    expect(causes).to.have.length(1);
    expect(causes[0]).to.include({ reason: 'FieldValueInvalid', field: 'spec.versions' });
    expect(causes[0].message).to.match(
      /^Invalid value: \[.*\]: must have exactly one version marked as storage version$/,
    );

    crd.spec.versions = [];
    expect(printed(crd)).to.deep.equal([
      'spec.versions: Invalid value: []: must have exactly one version marked as storage version',
    ]);
  });

  it('requires unique DNS-1035 version names', () => {
    const crd = widgetCRD();
    crd.spec.versions[1].name = 'v1';
    crd.spec.versions[2].name = '1alpha';
    const messages = printed(crd);
    expect(messages[0]).to.match(
      /^spec\.versions\[2\]\.name: Invalid value: "1alpha": a DNS-1035 label must consist of/,
    );
    expect(messages[1]).to.match(/^spec\.versions: Invalid value: \[.*\]: must contain unique version names$/);
    expect(messages).to.have.length(2);
  });

  it('requires a schema for every version', () => {
    const crd = widgetCRD();
    delete crd.spec.versions[2].schema;
    expect(validateCRD(crd)).to.deep.equal([
      {
        reason: 'FieldValueRequired',
        field: 'spec.versions[2].schema.openAPIV3Schema',
        message: 'Required value: schemas are required',
      },
    ]);
  });

  it('requires names, defaulting singular and listKind from the kind first', () => {
    const crd = widgetCRD();
    delete crd.spec.names.singular;
    delete crd.spec.names.listKind;
    expect(validateCRD(crd)).to.deep.equal([]);
    delete crd.spec.names.kind;
    delete crd.spec.names.plural;
    crd.metadata.name = '.example.com';
    expect(printed(crd)).to.deep.equal([
      'spec.names.plural: Required value',
      'spec.names.singular: Required value',
      'spec.names.kind: Required value',
      'spec.names.listKind: Required value',
    ]);
  });

  it('checks the names are DNS-1035 labels, kinds in any case', () => {
    const crd = widgetCRD();
    crd.spec.names.plural = 'Widgets';
    crd.metadata.name = 'Widgets.example.com';
    crd.spec.names.kind = 'Wid_get';
    crd.spec.names.shortNames = ['wd', 'w.d'];
    crd.spec.names.categories = ['All'];
    const messages = printed(crd);
    expect(messages.map((m) => m.slice(0, m.indexOf(': ')))).to.deep.equal([
      'spec.names.plural',
      'spec.names.kind',
      'spec.names.shortNames[1]',
      'spec.names.categories[0]',
    ]);
    expect(messages[1]).to.match(
      /^spec\.names\.kind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: a DNS-1035 label must consist of/,
    );
    expect(messages.join('\n')).to.not.contain('WidgetList');
  });

  it('forbids a listKind equal to the kind', () => {
    const crd = widgetCRD();
    crd.spec.names.listKind = 'Widget';
    expect(printed(crd)).to.deep.equal([
      'spec.names.listKind: Invalid value: "Widget": kind and listKind may not be the same',
    ]);
  });
});

describe('CRD resources', () => {
  it('serves one resource per served version', () => {
    const infos = resourceInfoFromCRD(widgetCRD());
    expect(infos.map((i) => i.version)).to.deep.equal(['v1', 'v1beta1']);
    expect(infos[0]).to.deep.equal({
      group: 'example.com',
      version: 'v1',
      resource: 'widgets',
      kind: 'Widget',
      listKind: 'WidgetList',
      singular: 'widget',
      namespaced: true,
      verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
      shortNames: ['wd'],
      categories: ['all'],
      subresources: [
        { name: 'status', kind: 'Widget', verbs: ['get', 'patch', 'update'] },
        { name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] },
      ],
      builtin: false,
      openAPIV3Schema: SCHEMA.openAPIV3Schema,
    });
    expect(infos[1].subresources).to.deep.equal([]);
  });

  it('defaults singular and listKind, and honours the scope', () => {
    const crd = widgetCRD();
    crd.spec.scope = 'Cluster';
    delete crd.spec.names.singular;
    delete crd.spec.names.listKind;
    const [info] = resourceInfoFromCRD(crd);
    expect(info).to.include({ singular: 'widget', listKind: 'WidgetList', namespaced: false });
  });
});
