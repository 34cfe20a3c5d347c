import { expect } from 'chai';
import { parseSearchPath } from '../../search/search-paths.js';

describe('cache/search-paths: karmada-search URLs', () => {
  const cases: [string, ReturnType<typeof parseSearchPath>][] = [
    ['/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy/api/v1/pods', { kind: 'proxy', path: '/api/v1/pods' }],
    ['/apis/search.karmada.io/v1alpha1/proxying/anything/proxy/apis', { kind: 'proxy', path: '/apis' }],
    ['/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy', { kind: 'proxy', path: '/' }],
    [
      '/apis/search.karmada.io/v1alpha1/proxying/karmada/proxy/api/v1/namespaces/a/pods/p/log',
      { kind: 'proxy', path: '/api/v1/namespaces/a/pods/p/log' },
    ],
    [
      '/apis/search.karmada.io/v1alpha1/search/cache/apis/apps/v1/deployments',
      { kind: 'search', category: 'cache', path: '/apis/apps/v1/deployments' },
    ],
    ['/apis/search.karmada.io/v1alpha1/search/opensearch', { kind: 'search', category: 'opensearch', path: '/' }],
    ['/apis/search.karmada.io/v1alpha1/resourceregistries', { kind: 'none' }],
    ['/apis/search.karmada.io/v1alpha1/proxying//proxy/api', { kind: 'none' }],
    ['/apis/search.karmada.io/v1alpha1/proxying/karmada/other/api', { kind: 'none' }],
    ['/api/v1/pods', { kind: 'none' }],
  ];
  for (const [pathname, expected] of cases)
    it(`${pathname} → ${JSON.stringify(expected)}`, () => expect(parseSearchPath(pathname)).to.deep.equal(expected));
});
