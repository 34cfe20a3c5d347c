import { expect } from 'chai';
import {
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSSubdomain,
  nameValidatorFor,
  validateObjectMeta,
  validatePathSegmentName,
} from '../../apiserver/validation/names.js';

// Good/bad tables ported from apimachinery pkg/util/validation/validation_test.go.

const LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035_MESSAGE =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

function table(check: (value: string) => string[], good: string[], bad: string[]): void {
  for (const value of good) {
    it(`accepts ${JSON.stringify(value.length > 20 ? `${value.slice(0, 8)}…(${value.length})` : value)}`, () => {
      expect(check(value)).to.deep.equal([]);
    });
  }
  for (const value of bad) {
    it(`rejects ${JSON.stringify(value.length > 20 ? `${value.slice(0, 8)}…(${value.length})` : value)}`, () => {
      expect(check(value)).to.not.be.empty;
    });
  }
}

const a = (n: number) => 'a'.repeat(n);

describe('names: IsDNS1123Label', () => {
  table(
    isDNS1123Label,
    ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', '0', '01', '012', '1a', '1-a', '1--a--b--2', a(63)],
    [
      '',
      'A',
      'ABC',
      'aBc',
      'A1',
      'A-1',
      '1-A',
      '-',
      'a-',
      '-a',
      '1-',
      '-1',
      '_',
      'a_',
      '_a',
      'a_b',
      '1_',
      '_1',
      '1_2',
      '.',
      'a.',
      '.a',
      'a.b',
      '1.',
      '.1',
      '1.2',
      ' ',
      'a ',
      ' a',
      'a b',
      '1 ',
      ' 1',
      '1 2',
      a(64),
    ],
  );
  it('words a bad label as kube does', () => {
    expect(isDNS1123Label('Bad_Name')).to.deep.equal([LABEL_MESSAGE]);
  });
  it('reports the length and the pattern separately', () => {
    expect(isDNS1123Label(`${a(63)}-`)).to.deep.equal(['must be no more than 63 characters', LABEL_MESSAGE]);
  });
});

describe('names: IsDNS1123Subdomain', () => {
  table(
    isDNS1123Subdomain,
    [
      'a',
      'ab',
      'abc',
      'a1',
      'a-1',
      'a--1--2--b',
      '0',
      '01',
      '012',
      '1a',
      '1-a',
      '1--a--b--2',
      'a.a',
      'ab.a',
      'abc.a',
      'a1.a',
      'a-1.a',
      'a--1--2--b.a',
      'a.1',
      'ab.1',
      'abc.1',
      'a1.1',
      'a-1.1',
      'a--1--2--b.1',
      '0.a',
      '01.a',
      '012.a',
      '1a.a',
      '1-a.a',
      '1--a--b--2',
      '0.1',
      '01.1',
      '012.1',
      '1a.1',
      '1-a.1',
      '1--a--b--2.1',
      'a.b.c.d.e',
      'aa.bb.cc.dd.ee',
      '1.2.3.4.5',
      '11.22.33.44.55',
      a(253),
    ],
    [
      '',
      'A',
      'ABC',
      'aBc',
      'A1',
      'A-1',
      '1-A',
      '-',
      'a-',
      '-a',
      '1-',
      '-1',
      '_',
      'a_',
      '_a',
      'a_b',
      '1_',
      '_1',
      '1_2',
      '.',
      'a.',
      '.a',
      'a..b',
      '1.',
      '.1',
      '1..2',
      ' ',
      'a ',
      ' a',
      'a b',
      '1 ',
      ' 1',
      '1 2',
      'A.a',
      'aB.a',
      'ab.A',
      'A1.a',
      'a1.A',
      'A.1',
      'aB.1',
      'A1.1',
      '1A.1',
      '0.A',
      '01.A',
      '012.A',
      '1A.a',
      '1a.A',
      'A.B.C.D.E',
      'AA.BB.CC.DD.EE',
      'a.B.c.d.e',
      'aa.bB.cc.dd.ee',
      'a@b',
      'a,b',
      'a_b',
      'a;b',
      'a:b',
      'a%b',
      'a?b',
      'a$b',
      a(254),
    ],
  );
  it('words a bad subdomain as kube does', () => {
    expect(isDNS1123Subdomain('Bad_Name')).to.deep.equal([SUBDOMAIN_MESSAGE]);
  });
  it('counts length in bytes, as Go does', () => {
    expect(isDNS1123Subdomain('é'.repeat(127))[0]).to.equal('must be no more than 253 characters');
  });
});

describe('names: IsDNS1035Label', () => {
  table(
    isDNS1035Label,
    ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', a(63)],
    [
      '0',
      '01',
      '012',
      '1a',
      '1-a',
      '1--a--b--2',
      '',
      'A',
      'ABC',
      'aBc',
      'A1',
      'A-1',
      '1-A',
      '-',
      'a-',
      '-a',
      '1-',
      '-1',
      '_',
      'a_',
      '_a',
      'a_b',
      '1_',
      '_1',
      '1_2',
      '.',
      'a.',
      '.a',
      'a.b',
      '1.',
      '.1',
      '1.2',
      ' ',
      'a ',
      ' a',
      'a b',
      '1 ',
      ' 1',
      '1 2',
      a(64),
    ],
  );
  it('words a bad label as kube does', () => {
    expect(isDNS1035Label('1abc')).to.deep.equal([DNS1035_MESSAGE]);
  });
});

describe('names: IsQualifiedName', () => {
  table(
    isQualifiedName,
    [
      'simple',
      'now-with-dashes',
      '1-starts-with-num',
      '1234',
      'simple/simple',
      'now-with-dashes/simple',
      'now-with-dashes/now-with-dashes',
      'now.with.dots/simple',
      'now-with.dashes-and.dots/simple',
      '1-num.2-num/3-num',
      '1234/5678',
      '1.2.3.4/5678',
      'Uppercase_Is_OK_123',
      'example.com/Uppercase_Is_OK_123',
      'requests.storage-foo',
      a(63),
      `${a(253)}/${'b'.repeat(63)}`,
    ],
    [
      'nospecialchars%^=@',
      'cantendwithadash-',
      '-cantstartwithadash-',
      'only/one/slash',
      'Example.com/abc',
      'example_com/abc',
      'example.com/',
      '/simple',
      a(64),
      `${a(254)}/abc`,
    ],
  );
  it('names the part that is wrong', () => {
    expect(isQualifiedName('/simple')).to.deep.equal(['prefix part must be non-empty']);
    expect(isQualifiedName('example.com/')).to.deep.equal([
      'name part must be non-empty',
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
    expect(isQualifiedName('only/one/slash')[0]).to.match(
      /^a qualified name must consist of .* with an optional DNS subdomain prefix and '\/' \(e\.g\. 'example\.com\/MyName'\)$/,
    );
  });

  it('measures each part in bytes, as Go does, and says which limit it passed', () => {
    expect(isQualifiedName(a(64))).to.deep.equal(['name part must be no more than 63 characters']);
    expect(isQualifiedName(`${a(254)}/abc`)).to.deep.equal(['prefix part must be no more than 253 characters']);
    expect(isQualifiedName(`x${'é'.repeat(32)}`)[0]).to.equal('name part must be no more than 63 characters');
    expect(isQualifiedName(`Example.com/${a(63)}`)).to.deep.equal([`prefix part ${SUBDOMAIN_MESSAGE}`]);
  });
});

describe('names: IsValidLabelValue', () => {
  table(
    isValidLabelValue,
    ['simple', 'now-with-dashes', '1-starts-with-num', 'end-with-num-1', '1234', a(63), ''],
    [
      'nospecialchars%^=@',
      'Tama-nui-te-rā.is.Māori.sun',
      '\\backslashes\\are\\bad',
      '-starts-with-dash',
      'ends-with-dash-',
      '.starts.with.dot',
      'ends.with.dot.',
      a(64),
    ],
  );
});

describe('names: generateName prefixes and path segments', () => {
  it('lets a generateName prefix end with a dash', () => {
    expect(nameIsDNSSubdomain('web-', true)).to.deep.equal([]);
    expect(nameIsDNSSubdomain('web-', false)).to.deep.equal([SUBDOMAIN_MESSAGE]);
  });
  it('rejects what a path segment cannot hold', () => {
    expect(validatePathSegmentName('..', false)).to.deep.equal(["may not be '..'"]);
    expect(validatePathSegmentName('a/b%c', false)).to.deep.equal(["may not contain '/'", "may not contain '%'"]);
    expect(validatePathSegmentName('system:admin', false)).to.deep.equal([]);
    expect(validatePathSegmentName('..', true)).to.deep.equal([]);
  });
});

describe('names: the rule per resource', () => {
  it('namespaces are DNS labels', () => {
    expect(nameValidatorFor('', 'namespaces')('a.b', false)).to.deep.equal([LABEL_MESSAGE]);
  });
  it('services are DNS-1035 labels', () => {
    expect(nameValidatorFor('', 'services')('1web', false)).to.deep.equal([DNS1035_MESSAGE]);
    expect(nameValidatorFor('', 'pods')('1web', false)).to.deep.equal([]);
  });
  it('statefulsets are DNS labels, deployments subdomains', () => {
    expect(nameValidatorFor('apps', 'statefulsets')('db.v1', false)).to.not.be.empty;
    expect(nameValidatorFor('apps', 'deployments')('db.v1', false)).to.deep.equal([]);
  });
  it('RBAC objects only need to be path segments', () => {
    expect(nameValidatorFor('rbac.authorization.k8s.io', 'clusterroles')('system:controller:Foo', false)).to.deep.equal(
      [],
    );
    expect(nameValidatorFor('rbac.authorization.k8s.io', 'roles')('a/b', false)).to.deep.equal(["may not contain '/'"]);
  });
  it('cronjob names leave room for the job suffix', () => {
    expect(nameValidatorFor('batch', 'cronjobs')(a(52), false)).to.deep.equal([]);
    expect(nameValidatorFor('batch', 'cronjobs')(a(53), false)).to.deep.equal(['must be no more than 52 characters']);
  });
  it('custom resources are DNS subdomains', () => {
    expect(nameValidatorFor('example.com', 'widgets')('My_Widget', false)).to.deep.equal([SUBDOMAIN_MESSAGE]);
  });
});

describe('names: ValidateObjectMeta', () => {
  const options = { namespaced: true, nameValidator: nameIsDNSSubdomain, generateNameAllowed: true };

  it('accepts ordinary metadata', () => {
    expect(
      validateObjectMeta(
        {
          name: 'web',
          namespace: 'default',
          labels: { app: 'web', 'example.com/tier': '' },
          annotations: { 'Example.com/Note': 'x' },
        },
        options,
      ),
    ).to.deep.equal([]);
  });

  it('reports a bad name with the field path and message kubectl prints', () => {
    const causes = validateObjectMeta(
      { name: 'Bad_Name' },
      { namespaced: false, nameValidator: nameValidatorFor('', 'namespaces'), generateNameAllowed: true },
    );
    expect(causes).to.deep.equal([
      { reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: "Bad_Name": ${LABEL_MESSAGE}` },
    ]);
  });

  it('requires a name unless one will be generated', () => {
    const required = {
      reason: 'FieldValueRequired',
      field: 'metadata.name',
      message: 'Required value: name or generateName is required',
    };
    expect(validateObjectMeta({ namespace: 'default' }, options)).to.deep.equal([required]);
    expect(validateObjectMeta({ generateName: 'web-', namespace: 'default' }, options)).to.deep.equal([]);
    expect(
      validateObjectMeta({ generateName: 'web-', namespace: 'default' }, { ...options, generateNameAllowed: false }),
    ).to.deep.equal([required]);
  });

  it('validates generateName as a prefix', () => {
    expect(validateObjectMeta({ generateName: 'Web-', namespace: 'default' }, options)).to.deep.equal([
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.generateName',
        message: `Invalid value: "Web-": ${SUBDOMAIN_MESSAGE}`,
      },
    ]);
  });

  it('requires a valid namespace on namespaced kinds and forbids one elsewhere', () => {
    expect(validateObjectMeta({ name: 'web' }, options)).to.deep.equal([
      { reason: 'FieldValueRequired', field: 'metadata.namespace', message: 'Required value' },
    ]);
    expect(validateObjectMeta({ name: 'web', namespace: 'a.b' }, options)).to.deep.equal([
      { reason: 'FieldValueInvalid', field: 'metadata.namespace', message: `Invalid value: "a.b": ${LABEL_MESSAGE}` },
    ]);
    expect(validateObjectMeta({ name: 'web', namespace: 'default' }, { ...options, namespaced: false })).to.deep.equal([
      { reason: 'FieldValueForbidden', field: 'metadata.namespace', message: 'Forbidden: not allowed on this type' },
    ]);
  });

  it('validates label keys and values', () => {
    const causes = validateObjectMeta(
      { name: 'web', namespace: 'default', labels: { 'bad key': 'ok', good: 'bad value!' } },
      options,
    );
    expect(
      causes.map((c) => [c.field, c.message.slice(0, c.message.indexOf(':', 'Invalid value: '.length))]),
    ).to.deep.equal([
      ['metadata.labels', 'Invalid value: "bad key"'],
      ['metadata.labels', 'Invalid value: "bad value!"'],
    ]);
    expect(causes[1].message).to.contain('a valid label must be an empty string or consist of alphanumeric characters');
  });

  it('validates annotation keys case-insensitively but reports them as written', () => {
    const causes = validateObjectMeta(
      { name: 'web', namespace: 'default', annotations: { 'Bad_Prefix.com/x': '1' } },
      options,
    );
    expect(causes).to.have.length(1);
    expect(causes[0].message).to.match(
      /^Invalid value: "Bad_Prefix\.com\/x": prefix part a lowercase RFC 1123 subdomain/,
    );
  });

  it('limits the total size of annotations to 256 KiB', () => {
    const limit = 256 * 1024;
    expect(
      validateObjectMeta({ name: 'web', namespace: 'default', annotations: { k: 'v'.repeat(limit - 1) } }, options),
    ).to.deep.equal([]);
    expect(
      validateObjectMeta({ name: 'web', namespace: 'default', annotations: { k: 'v'.repeat(limit) } }, options),
    ).to.deep.equal([
      {
        reason: 'FieldValueTooLong',
        field: 'metadata.annotations',
        message: 'Too long: may not be more than 262144 bytes',
      },
    ]);
  });

  it('quotes values as Go does', () => {
    const [cause] = validateObjectMeta({ name: 'a"b\n', namespace: 'default' }, options);
    expect(cause.message).to.match(/^Invalid value: "a\\"b\\n": /);
  });
});
