// @ts-check
/**
 * The rooms of the project and what each may import (docs/architecture.md, "Rooms and what each
 * may import"; docs/design.md, "Layout"): imports run down the layers and never in a circle,
 * type-only imports included. `npm run lint` and test/lint/layers.test.ts run it over the sources.
 */

/** The code folders from the bottom up: each may import the folders below it, never one above. */
export const LAYERS = [
  'log',
  'processes',
  'store',
  'certs',
  'apiserver',
  'translate',
  'informer',
  'devcluster',
  'clusters',
  'search',
  'tenants',
  'eviction',
  'gateway',
  'cmd',
];
/** Above every layer: they may import everything, and nothing imports them. */
export const ON_TOP = ['bench', 'test'];

/**
 * What translate/ may import besides itself: it does no I/O, so only apiserver's pure parsers and
 * tables (schema.ts reads its table once, at load) and the Node modules that compute.
 */
export const TRANSLATE_MAY_IMPORT = [
  'apiserver/api-version.ts',
  'apiserver/go-json/marshal.ts',
  'apiserver/host-port.ts',
  'apiserver/json.ts',
  'apiserver/openapi/v3.ts',
  'apiserver/protobuf/schema.ts',
  'apiserver/protobuf/wire.ts',
  'apiserver/request-info.ts',
  'apiserver/resources/builtin-groups.ts',
  'apiserver/selectors/field-selector.ts',
  'crypto',
  'util',
];

const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const folders = (names) => `^(${names.join('|')})/`;

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'A circle of imports, type-only ones included: move what both need below both.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...LAYERS.map((layer, i) => ({
      name: `no-upward-from-${layer}`,
      comment: `${layer}/ imports only the folders below it: ${LAYERS.slice(0, i).join(', ') || 'none'}.`,
      severity: /** @type {const} */ ('error'),
      from: { path: `^${layer}/` },
      to: { path: folders([...LAYERS.slice(i + 1), ...ON_TOP]) },
    })),
    {
      name: 'translate-is-pure',
      comment: 'translate/ does no I/O: besides itself, only the pure files of TRANSLATE_MAY_IMPORT.',
      severity: 'error',
      from: { path: '^translate/' },
      to: { pathNot: `^(translate/|(${TRANSLATE_MAY_IMPORT.map(escaped).join('|')})$)` },
    },
  ],
  options: {
    // Type-only imports are dependencies too: a circle of types is still a circle.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    includeOnly: folders([...LAYERS, ...ON_TOP]),
    doNotFollow: { path: 'node_modules' },
  },
};
