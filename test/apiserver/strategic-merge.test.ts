import { expect } from 'chai';
import { parse } from 'yaml';
import { PatchError, applyPatch } from '../../apiserver/patch/index.js';
import { patchMetaFor, type FieldPatchMeta, type PatchMetaTree } from '../../apiserver/patch/patch-meta.js';
import { strategicMergePatch } from '../../apiserver/patch/strategic-merge.js';

/** apimachinery's test schema, the MergeItem and RetainKeysMergeItem structs, as a metadata tree. */
const mergeItem: Record<string, FieldPatchMeta> = {};
const retainKeysMergeItem: PatchMetaTree = {
  mergingIntList: { strategy: 'merge' },
  mergingList: { strategy: 'merge', mergeKey: 'name', fields: mergeItem },
};
Object.assign(mergeItem, {
  mergingList: { strategy: 'merge', mergeKey: 'name', fields: mergeItem },
  mergingIntList: { strategy: 'merge' },
  mergeItemPtr: { strategy: 'merge', mergeKey: 'name', fields: mergeItem },
  replacingItem: { strategy: 'replace' },
  retainKeysMap: { strategy: 'retainKeys', fields: retainKeysMergeItem },
  retainKeysMergingList: { strategy: 'merge,retainKeys', mergeKey: 'name', fields: mergeItem },
} satisfies PatchMetaTree);

/**
 * One case of apimachinery's pkg/util/strategicpatch/patch_test.go: `original` patched by `twoWay`
 * gives `twoWayResult`, else `modified`; `current` patched by `threeWay` gives `result`.
 */
interface ApimachineryCase {
  description: string;
  original?: object;
  twoWay?: unknown;
  modified?: object;
  twoWayResult?: object;
  current?: object;
  threeWay?: unknown;
  result?: object;
  expectedError?: string;
}

// The applying half of patch_test.go: customStrategicMergePatchTestCaseData and its raw cases,
// createStrategicMergePatchTestCaseData, strategicMergePatchRawTestCases,
// replaceRawExtensionPatchTestCases and TestUnknownField, rewritten in YAML flow style.
const apimachineryCases = parse(`
# customStrategicMergePatchTestCaseData
- description: unique scalars when merging lists
  original: {mergingIntList: [1, 2]}
  twoWay: {mergingIntList: [2, 3]}
  modified: {mergingIntList: [1, 2, 3]}
- description: delete map from nested map
  original: {simpleMap: {key1: 1, key2: 1}}
  twoWay: {simpleMap: {$patch: delete}}
  modified: {simpleMap: {}}
- description: delete all items from merging list
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay: {mergingList: [{$patch: replace}]}
  modified: {mergingList: []}
- description: merge empty merging lists
  original: {mergingList: []}
  twoWay: {mergingList: []}
  modified: {mergingList: []}
- description: delete all keys from map
  original: {name: 1, value: 1}
  twoWay: {$patch: replace}
  modified: {}
- description: add key and delete all keys from map
  original: {name: 1, value: 1}
  twoWay: {other: a, $patch: replace}
  modified: {other: a}
- description: delete all duplicate entries in a merging list
  original: {mergingList: [{name: 1}, {name: 1}, {name: 2, value: a}, {name: 3}, {name: 3}]}
  twoWay: {mergingList: [{name: 1, $patch: delete}, {name: 3, $patch: delete}]}
  modified: {mergingList: [{name: 2, value: a}]}
- description: retainKeys map can add a field when no retainKeys directive present
  original: {retainKeysMap: {name: foo}}
  twoWay: {retainKeysMap: {value: bar}}
  modified: {retainKeysMap: {name: foo, value: bar}}
- description: retainKeys map can change a field when no retainKeys directive present
  original: {retainKeysMap: {name: foo, value: a}}
  twoWay: {retainKeysMap: {value: b}}
  modified: {retainKeysMap: {name: foo, value: b}}
- description: retainKeys map can delete a field when no retainKeys directive present
  original: {retainKeysMap: {name: foo, value: a}}
  twoWay: {retainKeysMap: {value: null}}
  modified: {retainKeysMap: {name: foo}}
- description: retainKeys map merge an empty map
  original: {retainKeysMap: {name: foo, value: a}}
  twoWay: {retainKeysMap: {}}
  modified: {retainKeysMap: {name: foo, value: a}}
- description: retainKeys list can add a field when no retainKeys directive present
  original: {retainKeysMergingList: [{name: bar}, {name: foo}]}
  twoWay: {retainKeysMergingList: [{name: foo, value: a}]}
  modified: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
- description: retainKeys list can change a field when no retainKeys directive present
  original: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
  twoWay: {retainKeysMergingList: [{name: foo, value: b}]}
  modified: {retainKeysMergingList: [{name: bar}, {name: foo, value: b}]}
- description: retainKeys list can delete a field when no retainKeys directive present
  original: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
  twoWay: {retainKeysMergingList: [{name: foo, value: null}]}
  modified: {retainKeysMergingList: [{name: bar}, {name: foo}]}
- description: preserve the order from the patch in a merging list
  original: {mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]}
  twoWay: {mergingList: [{name: 3, value: c}, {name: 1, value: a}, {name: 2, other: x}]}
  modified: {mergingList: [{name: 3, value: c}, {name: 1, value: a}, {name: 2, value: b, other: x}]}
- description: preserve the order from the patch in a merging list 2
  original: {mergingList: [{name: 1}, {name: 2, value: b}, {name: 3}]}
  twoWay: {mergingList: [{name: 3, value: c}, {name: 1, value: a}]}
  modified: {mergingList: [{name: 2, value: b}, {name: 3, value: c}, {name: 1, value: a}]}
- description: preserve the order from the patch in a merging int list
  original: {mergingIntList: [1, 2, 3]}
  twoWay: {mergingIntList: [3, 1, 2]}
  modified: {mergingIntList: [3, 1, 2]}
- description: preserve the order from the patch in a merging int list 2
  original: {mergingIntList: [1, 2, 3]}
  twoWay: {mergingIntList: [3, 1]}
  modified: {mergingIntList: [2, 3, 1]}
# customStrategicMergePatchRawTestCases
- description: $setElementOrder contains item that is not present in the list to be merged
  original: {mergingList: [{name: 1}, {name: 3}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 3}, {name: 2}, {name: 1}]
    mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]
  modified: {mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]}
- description: $setElementOrder contains item that is not present in the int list to be merged
  original: {mergingIntList: [1, 3]}
  twoWay: {$setElementOrder/mergingIntList: [3, 2, 1]}
  modified: {mergingIntList: [3, 1]}
- description: should check if order in $setElementOrder and patch list match
  original: {mergingList: [{name: 1}, {name: 3}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 3, value: 3}, {name: 1, value: 1}]
  expectedError: doesn't match
- description: $setElementOrder and patch int list must match in order
  original: {mergingIntList: [1, 3, 2]}
  twoWay:
    $setElementOrder/mergingIntList: [1, 2, 3]
    mergingIntList: [3, 1]
  expectedError: doesn't match
- description: missing merge key should error out
  original: {mergingList: [{name: 1, value: a}]}
  twoWay: {mergingList: [{value: b}]}
  expectedError: does not contain declared merge key
- description: $deleteFromPrimitiveList of nonexistent item in primitive list should not add the item to the list
  original: {mergingIntList: [1, 2]}
  twoWay: {$deleteFromPrimitiveList/mergingIntList: [3]}
  modified: {mergingIntList: [1, 2]}
- description: $deleteFromPrimitiveList on empty primitive list should not add the item to the list
  original: {mergingIntList: null}
  twoWay: {$deleteFromPrimitiveList/mergingIntList: [3]}
  modified: {mergingIntList: null}
- description: $deleteFromPrimitiveList on nonexistent primitive list should not add the primitive list
  original: {foo: [bar]}
  twoWay: {$deleteFromPrimitiveList/mergingIntList: [3]}
  modified: {foo: [bar]}
- description: $deleteFromPrimitiveList should delete item from a list with merge patch strategy
  original: {mergingIntList: [1, 2, 3]}
  twoWay: {$deleteFromPrimitiveList/mergingIntList: [2]}
  modified: {mergingIntList: [1, 3]}
- description: $deleteFromPrimitiveList should delete item from a list without merge patch strategy
  original: {nonMergingIntList: [1, 2, 3]}
  twoWay: {$deleteFromPrimitiveList/nonMergingIntList: [2]}
  modified: {nonMergingIntList: [1, 3]}
# createStrategicMergePatchTestCaseData
- description: nil original
  twoWay: {name: 1, value: 1}
  modified: {name: 1, value: 1}
  current: {name: 1, other: a}
  threeWay: {value: 1}
  result: {name: 1, value: 1, other: a}
- description: nil patch
  original: {name: 1}
  twoWay: {}
  modified: {name: 1}
  current: {name: 1}
  threeWay: {}
  result: {name: 1}
- description: add field to map
  original: {name: 1}
  twoWay: {value: 1}
  modified: {name: 1, value: 1}
  current: {name: 1, other: a}
  threeWay: {value: 1}
  result: {name: 1, value: 1, other: a}
- description: add field to map with conflict
  original: {name: 1}
  twoWay: {value: 1}
  modified: {name: 1, value: 1}
  current: {name: a, other: a}
  threeWay: {name: 1, value: 1}
  result: {name: 1, value: 1, other: a}
- description: add field and delete field from map
  original: {name: 1}
  twoWay: {name: null, value: 1}
  modified: {value: 1}
  current: {name: 1, other: a}
  threeWay: {name: null, value: 1}
  result: {value: 1, other: a}
- description: add field and delete field from map with conflict
  original: {name: 1}
  twoWay: {name: null, value: 1}
  modified: {value: 1}
  current: {name: a, other: a}
  threeWay: {name: null, value: 1}
  result: {value: 1, other: a}
- description: delete field from nested map
  original: {simpleMap: {key1: 1, key2: 1}}
  twoWay: {simpleMap: {key2: null}}
  modified: {simpleMap: {key1: 1}}
  current: {simpleMap: {key1: 1, key2: 1, other: a}}
  threeWay: {simpleMap: {key2: null}}
  result: {simpleMap: {key1: 1, other: a}}
- description: delete field from nested map with conflict
  original: {simpleMap: {key1: 1, key2: 1}}
  twoWay: {simpleMap: {key2: null}}
  modified: {simpleMap: {key1: 1}}
  current: {simpleMap: {key1: a, key2: 1, other: a}}
  threeWay: {simpleMap: {key1: 1, key2: null}}
  result: {simpleMap: {key1: 1, other: a}}
- description: delete all fields from map
  original: {name: 1, value: 1}
  twoWay: {name: null, value: null}
  modified: {}
  current: {name: 1, value: 1, other: a}
  threeWay: {name: null, value: null}
  result: {other: a}
- description: delete all fields from map with conflict
  original: {name: 1, value: 1}
  twoWay: {name: null, value: null}
  modified: {}
  current: {name: 1, value: a, other: a}
  threeWay: {name: null, value: null}
  result: {other: a}
- description: add field and delete all fields from map
  original: {name: 1, value: 1}
  twoWay: {name: null, value: null, other: a}
  modified: {other: a}
  current: {name: 1, value: 1, other: a}
  threeWay: {name: null, value: null}
  result: {other: a}
- description: add field and delete all fields from map with conflict
  original: {name: 1, value: 1}
  twoWay: {name: null, value: null, other: a}
  modified: {other: a}
  current: {name: 1, value: 1, other: b}
  threeWay: {name: null, value: null, other: a}
  result: {other: a}
- description: replace list of scalars
  original: {nonMergingIntList: [1, 2]}
  twoWay: {nonMergingIntList: [2, 3]}
  modified: {nonMergingIntList: [2, 3]}
  current: {nonMergingIntList: [1, 2]}
  threeWay: {nonMergingIntList: [2, 3]}
  result: {nonMergingIntList: [2, 3]}
- description: replace list of scalars with conflict
  original: {nonMergingIntList: [1, 2]}
  twoWay: {nonMergingIntList: [2, 3]}
  modified: {nonMergingIntList: [2, 3]}
  current: {nonMergingIntList: [1, 4]}
  threeWay: {nonMergingIntList: [2, 3]}
  result: {nonMergingIntList: [2, 3]}
- description: delete all maps from merging list
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay: {mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}
  modified: {mergingList: []}
  current: {mergingList: [{name: 1}, {name: 2}]}
  threeWay: {mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}
  result: {mergingList: []}
- description: delete all maps from merging list with conflict
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay: {mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}
  modified: {mergingList: []}
  current: {mergingList: [{name: 1, other: a}, {name: 2, other: b}]}
  threeWay: {mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}
  result: {mergingList: []}
- description: delete all maps from empty merging list
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay: {mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}
  modified: {mergingList: []}
  current: {mergingList: []}
  threeWay: {mergingList: [{name: 1, $patch: delete}, {name: 2, $patch: delete}]}
  result: {mergingList: []}
- description: merge empty merging lists with an empty patch
  original: {mergingList: []}
  twoWay: {}
  modified: {mergingList: []}
  current: {mergingList: []}
  threeWay: {}
  result: {mergingList: []}
- description: defined null values should propagate overwrite current fields (with conflict)
  original: {name: 2}
  twoWay: {name: 1, value: 1, other: null}
  twoWayResult: {name: 1, value: 1}
  modified: {name: 1, value: 1, other: null}
  current: {name: a, other: a}
  threeWay: {name: 1, value: 1, other: null}
  result: {name: 1, value: 1}
- description: defined null values should propagate removing original fields
  original: {name: original-name, value: original-value}
  current: {name: original-name, value: original-value, other: current-other}
  modified: {name: modified-name, value: null}
  twoWay: {name: modified-name, value: null}
  twoWayResult: {name: modified-name}
  threeWay: {name: modified-name, value: null}
  result: {name: modified-name, other: current-other}
- description: nil patch with retainKeys map
  original: {name: a, retainKeysMap: {name: foo}}
  current: {name: a, value: b, retainKeysMap: {name: foo}}
  modified: {name: a, retainKeysMap: {name: foo}}
  twoWay: {}
  threeWay: {}
  result: {name: a, value: b, retainKeysMap: {name: foo}}
- description: retainKeys map with no change should not be present
  original: {name: a, retainKeysMap: {name: foo}}
  current: {name: a, other: c, retainKeysMap: {name: foo}}
  modified: {name: a, value: b, retainKeysMap: {name: foo}}
  twoWay: {value: b}
  threeWay: {value: b}
  result: {name: a, value: b, other: c, retainKeysMap: {name: foo}}
# strategicMergePatchRawTestCases
- description: nested patch merge with empty list
  original: {name: hi}
  current: {name: hi, mergingList: [{name: hello2}]}
  modified: {name: hi, mergingList: [{name: hello}, {$patch: delete, name: doesntexist}]}
  twoWay: {mergingList: [{name: hello}, {$patch: delete, name: doesntexist}]}
  threeWay:
    $setElementOrder/mergingList: [{name: hello}, {name: doesntexist}]
    mergingList: [{name: hello}, {$patch: delete, name: doesntexist}]
  twoWayResult: {name: hi, mergingList: [{name: hello}]}
  result: {name: hi, mergingList: [{name: hello}, {name: hello2}]}
- description: delete items in lists of scalars
  original: {mergingIntList: [1, 2, 3]}
  twoWay:
    $setElementOrder/mergingIntList: [1, 2]
    $deleteFromPrimitiveList/mergingIntList: [3]
  modified: {mergingIntList: [1, 2]}
  current: {mergingIntList: [1, 2, 3, 4]}
  threeWay:
    $setElementOrder/mergingIntList: [1, 2]
    $deleteFromPrimitiveList/mergingIntList: [3]
  result: {mergingIntList: [1, 2, 4]}
- description: delete all duplicate items in lists of scalars
  original: {mergingIntList: [1, 2, 3, 3]}
  twoWay:
    $setElementOrder/mergingIntList: [1, 2]
    $deleteFromPrimitiveList/mergingIntList: [3]
  modified: {mergingIntList: [1, 2]}
  current: {mergingIntList: [1, 2, 3, 3, 4]}
  threeWay:
    $setElementOrder/mergingIntList: [1, 2]
    $deleteFromPrimitiveList/mergingIntList: [3]
  result: {mergingIntList: [1, 2, 4]}
- description: add and delete items in lists of scalars
  original: {mergingIntList: [1, 2, 3]}
  twoWay:
    $setElementOrder/mergingIntList: [1, 2, 4]
    $deleteFromPrimitiveList/mergingIntList: [3]
    mergingIntList: [4]
  modified: {mergingIntList: [1, 2, 4]}
  current: {mergingIntList: [1, 2, 3, 4]}
  threeWay:
    $setElementOrder/mergingIntList: [1, 2, 4]
    $deleteFromPrimitiveList/mergingIntList: [3]
  result: {mergingIntList: [1, 2, 4]}
- description: merge lists of maps
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 4}, {name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]
  modified: {mergingList: [{name: 4, value: 4}, {name: 1}, {name: 2, value: 2}, {name: 3, value: 3}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 4}, {name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]
  result: {mergingList: [{name: 4, value: 4}, {name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}
- description: merge lists of maps with conflict
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 3, value: 3}]
  modified: {mergingList: [{name: 1}, {name: 2, value: 2}, {name: 3, value: 3}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 3, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 2, value: 2}, {name: 3, value: 3}]
  result: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}
- description: add field to map in merging list
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: 1}]
  modified: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: 1}]
  result: {mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]}
- description: add field to map in merging list with conflict
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: 1}]
  modified: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, other: a}, {name: 3, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]
  result: {mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2}, {name: 3, value: 2, other: b}]}
- description: add duplicate field to map in merging list
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: 1}]
  modified: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]}
  threeWay: {}
  result: {mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]}
- description: add an item that already exists in current object in merging list
  original: {mergingList: [{name: 1, value: a}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}, {name: 3}]
    mergingList: [{name: 3}]
  modified: {mergingList: [{name: 1, value: a}, {name: 2}, {name: 3}]}
  current: {mergingList: [{name: 1, value: a, other: x}, {name: 2}, {name: 3}]}
  threeWay: {}
  result: {mergingList: [{name: 1, value: a, other: x}, {name: 2}, {name: 3}]}
- description: add duplicate field to map in merging list with conflict
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: 1}]
  modified: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 3, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 2, value: 2}]
  result: {mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]}
- description: replace map field value in merging list
  original: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: a}]
  modified: {mergingList: [{name: 1, value: a}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: a}]
  result: {mergingList: [{name: 1, value: a, other: a}, {name: 2, value: 2, other: b}]}
- description: replace map field value in merging list with conflict
  original: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: a}]
  modified: {mergingList: [{name: 1, value: a}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, value: 3, other: a}, {name: 2, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: a}]
  result: {mergingList: [{name: 1, value: a, other: a}, {name: 2, value: 2, other: b}]}
- description: delete map from merging list
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 2}]
    mergingList: [{name: 1, $patch: delete}]
  modified: {mergingList: [{name: 2}]}
  current: {mergingList: [{name: 1}, {name: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 2}]
    mergingList: [{name: 1, $patch: delete}]
  result: {mergingList: [{name: 2, other: b}]}
- description: delete map from merging list with conflict
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 2}]
    mergingList: [{name: 1, $patch: delete}]
  modified: {mergingList: [{name: 2}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 2}]
    mergingList: [{name: 1, $patch: delete}]
  result: {mergingList: [{name: 2, other: b}]}
- description: delete missing map from merging list
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 2}]
    mergingList: [{name: 1, $patch: delete}]
  modified: {mergingList: [{name: 2}]}
  current: {mergingList: [{name: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 2}]
    mergingList: [{name: 1, $patch: delete}]
  result: {mergingList: [{name: 2, other: b}]}
- description: delete missing map from merging list with conflict
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 2}]
    mergingList: [{name: 1, $patch: delete}]
  modified: {mergingList: [{name: 2}]}
  current: {mergingList: [{name: 3, other: a}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 2}]
    mergingList: [{name: 2}, {name: 1, $patch: delete}]
  result: {mergingList: [{name: 2}, {name: 3, other: a}]}
- description: add map and delete map from merging list
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 2}, {name: 3}]
    mergingList: [{name: 3}, {name: 1, $patch: delete}]
  modified: {mergingList: [{name: 2}, {name: 3}]}
  current: {mergingList: [{name: 1}, {name: 2, other: b}, {name: 4, other: c}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 2}, {name: 3}]
    mergingList: [{name: 3}, {name: 1, $patch: delete}]
  result: {mergingList: [{name: 2, other: b}, {name: 4, other: c}, {name: 3}]}
- description: add map and delete map from merging list with conflict
  original: {mergingList: [{name: 1}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 2}, {name: 3}]
    mergingList: [{name: 3}, {name: 1, $patch: delete}]
  modified: {mergingList: [{name: 2}, {name: 3}]}
  current: {mergingList: [{name: 1, other: a}, {name: 4, other: c}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 2}, {name: 3}]
    mergingList: [{name: 2}, {name: 3}, {name: 1, $patch: delete}]
  result: {mergingList: [{name: 4, other: c}, {name: 2}, {name: 3}]}
- description: delete field from map in merging list
  original: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: null}]
  modified: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: null}]
  result: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
- description: delete field from map in merging list with conflict
  original: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: null}]
  modified: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, value: a, other: a}, {name: 2, value: 2}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: null}]
  result: {mergingList: [{name: 1, other: a}, {name: 2, value: 2}]}
- description: delete missing field from map in merging list
  original: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: null}]
  modified: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: null}]
  result: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
- description: delete missing field from map in merging list with conflict
  original: {mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: null}]
  modified: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, value: null}, {name: 2, value: 2}]
  result: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
- description: replace non merging list nested in merging list
  original: {mergingList: [{name: 1, nonMergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}]
  modified: {mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}, {name: 2}]}
  current: {mergingList: [{name: 1, other: a, nonMergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}]
  result: {mergingList: [{name: 1, other: a, nonMergingList: [{name: 1, value: 1}]}, {name: 2, other: b}]}
- description: replace non merging list nested in merging list with value conflict
  original: {mergingList: [{name: 1, nonMergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}]
  modified: {mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}, {name: 2}]}
  current: {mergingList: [{name: 1, other: a, nonMergingList: [{name: 1, value: c}]}, {name: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}]
  result: {mergingList: [{name: 1, other: a, nonMergingList: [{name: 1, value: 1}]}, {name: 2, other: b}]}
- description: replace non merging list nested in merging list with deletion conflict
  original: {mergingList: [{name: 1, nonMergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}]
  modified: {mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}, {name: 2}]}
  current: {mergingList: [{name: 1, other: a, nonMergingList: [{name: 2, value: 2}]}, {name: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 1, nonMergingList: [{name: 1, value: 1}]}]
  result: {mergingList: [{name: 1, other: a, nonMergingList: [{name: 1, value: 1}]}, {name: 2, other: b}]}
- description: add field to map in merging list nested in merging list
  original: {mergingList: [{name: 1, mergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{$setElementOrder/mergingList: [{name: 1}, {name: 2}], name: 1, mergingList: [{name: 1, value: 1}]}]
  modified: {mergingList: [{name: 1, mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}, {name: 2}]}
  current: {mergingList: [{name: 1, other: a, mergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{$setElementOrder/mergingList: [{name: 1}, {name: 2}], name: 1, mergingList: [{name: 1, value: 1}]}]
  result: {mergingList: [{name: 1, other: a, mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}, {name: 2, other: b}]}
- description: add field to map in merging list nested in merging list with value conflict
  original: {mergingList: [{name: 1, mergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{$setElementOrder/mergingList: [{name: 1}, {name: 2}], name: 1, mergingList: [{name: 1, value: 1}]}]
  modified: {mergingList: [{name: 1, mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}, {name: 2}]}
  current: {mergingList: [{name: 1, other: a, mergingList: [{name: 1, value: a, other: c}, {name: 2, value: b, other: d}]}, {name: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{$setElementOrder/mergingList: [{name: 1}, {name: 2}], name: 1, mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}]
  result: {mergingList: [{name: 1, other: a, mergingList: [{name: 1, value: 1, other: c}, {name: 2, value: 2, other: d}]}, {name: 2, other: b}]}
- description: add field to map in merging list nested in merging list with deletion conflict
  original: {mergingList: [{name: 1, mergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{$setElementOrder/mergingList: [{name: 1}, {name: 2}], name: 1, mergingList: [{name: 1, value: 1}]}]
  modified: {mergingList: [{name: 1, mergingList: [{name: 1, value: 1}, {name: 2, value: 2}]}, {name: 2}]}
  current: {mergingList: [{name: 1, other: a, mergingList: [{name: 2, value: 2, other: d}]}, {name: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{$setElementOrder/mergingList: [{name: 1}, {name: 2}], name: 1, mergingList: [{name: 1, value: 1}]}]
  result: {mergingList: [{name: 1, other: a, mergingList: [{name: 1, value: 1}, {name: 2, value: 2, other: d}]}, {name: 2, other: b}]}
- description: add field to map in merging list nested in merging list with deletion conflict and reordering
  original: {mergingList: [{name: 1, mergingList: [{name: 1}, {name: 2, value: 2}]}, {name: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{$setElementOrder/mergingList: [{name: 2}, {name: 1}], name: 1, mergingList: [{name: 1, value: 1}]}]
  modified: {mergingList: [{name: 1, mergingList: [{name: 2, value: 2}, {name: 1, value: 1}]}, {name: 2}]}
  current: {mergingList: [{name: 1, other: a, mergingList: [{name: 2, value: 2, other: d}]}, {name: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{$setElementOrder/mergingList: [{name: 2}, {name: 1}], name: 1, mergingList: [{name: 1, value: 1}]}]
  result: {mergingList: [{name: 1, other: a, mergingList: [{name: 2, value: 2, other: d}, {name: 1, value: 1}]}, {name: 2, other: b}]}
- description: add map to merging list by pointer
  original: {mergeItemPtr: [{name: 1}]}
  twoWay:
    $setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}]
    mergeItemPtr: [{name: 2}]
  modified: {mergeItemPtr: [{name: 1}, {name: 2}]}
  current: {mergeItemPtr: [{name: 1, other: a}, {name: 3}]}
  threeWay:
    $setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}]
    mergeItemPtr: [{name: 2}]
  result: {mergeItemPtr: [{name: 1, other: a}, {name: 2}, {name: 3}]}
- description: add map to merging list by pointer with conflict
  original: {mergeItemPtr: [{name: 1}]}
  twoWay:
    $setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}]
    mergeItemPtr: [{name: 2}]
  modified: {mergeItemPtr: [{name: 1}, {name: 2}]}
  current: {mergeItemPtr: [{name: 3}]}
  threeWay:
    $setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}]
    mergeItemPtr: [{name: 1}, {name: 2}]
  result: {mergeItemPtr: [{name: 1}, {name: 2}, {name: 3}]}
- description: add field to map in merging list by pointer
  original: {mergeItemPtr: [{name: 1, mergeItemPtr: [{name: 1}, {name: 2, value: 2}]}, {name: 2}]}
  twoWay:
    $setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}]
    mergeItemPtr: [{$setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}], name: 1, mergeItemPtr: [{name: 1, value: 1}]}]
  modified: {mergeItemPtr: [{name: 1, mergeItemPtr: [{name: 1, value: 1}, {name: 2, value: 2}]}, {name: 2}]}
  current: {mergeItemPtr: [{name: 1, other: a, mergeItemPtr: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}, {name: 2, other: b}]}
  threeWay:
    $setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}]
    mergeItemPtr: [{$setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}], name: 1, mergeItemPtr: [{name: 1, value: 1}]}]
  result: {mergeItemPtr: [{name: 1, other: a, mergeItemPtr: [{name: 1, value: 1, other: a}, {name: 2, value: 2, other: b}]}, {name: 2, other: b}]}
- description: add field to map in merging list by pointer with conflict
  original: {mergeItemPtr: [{name: 1, mergeItemPtr: [{name: 1}, {name: 2, value: 2}]}, {name: 2}]}
  twoWay:
    $setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}]
    mergeItemPtr: [{$setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}], name: 1, mergeItemPtr: [{name: 1, value: 1}]}]
  modified: {mergeItemPtr: [{name: 1, mergeItemPtr: [{name: 1, value: 1}, {name: 2, value: 2}]}, {name: 2}]}
  current: {mergeItemPtr: [{name: 1, other: a, mergeItemPtr: [{name: 1, value: a}, {name: 2, value: 2, other: b}]}, {name: 2, other: b}]}
  threeWay:
    $setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}]
    mergeItemPtr: [{$setElementOrder/mergeItemPtr: [{name: 1}, {name: 2}], name: 1, mergeItemPtr: [{name: 1, value: 1}]}]
  result: {mergeItemPtr: [{name: 1, other: a, mergeItemPtr: [{name: 1, value: 1}, {name: 2, value: 2, other: b}]}, {name: 2, other: b}]}
- description: merge lists of scalars
  original: {mergingIntList: [1, 2]}
  twoWay:
    $setElementOrder/mergingIntList: [1, 2, 3]
    mergingIntList: [3]
  modified: {mergingIntList: [1, 2, 3]}
  current: {mergingIntList: [1, 2, 4]}
  threeWay:
    $setElementOrder/mergingIntList: [1, 2, 3]
    mergingIntList: [3]
  result: {mergingIntList: [1, 2, 3, 4]}
- description: add duplicate field to map in merging int list
  original: {mergingIntList: [1, 2]}
  twoWay:
    $setElementOrder/mergingIntList: [1, 2, 3]
    mergingIntList: [3]
  modified: {mergingIntList: [1, 2, 3]}
  current: {mergingIntList: [1, 2, 3]}
  threeWay: {}
  result: {mergingIntList: [1, 2, 3]}
- description: add an item in a list of primitives and preserve order
  original: {mergingIntList: [1, 2]}
  twoWay:
    $setElementOrder/mergingIntList: [3, 1, 2]
    mergingIntList: [3]
  modified: {mergingIntList: [3, 1, 2]}
  current: {mergingIntList: [1, 4, 2]}
  threeWay:
    $setElementOrder/mergingIntList: [3, 1, 2]
    mergingIntList: [3]
  result: {mergingIntList: [3, 1, 4, 2]}
- description: delete an item in a list of primitives and preserve order
  original: {mergingIntList: [1, 2, 3]}
  twoWay:
    $setElementOrder/mergingIntList: [2, 1]
    $deleteFromPrimitiveList/mergingIntList: [3]
  modified: {mergingIntList: [2, 1]}
  current: {mergingIntList: [1, 2, 3]}
  threeWay:
    $setElementOrder/mergingIntList: [2, 1]
    $deleteFromPrimitiveList/mergingIntList: [3]
  result: {mergingIntList: [2, 1]}
- description: add an item in a list and preserve order
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 3}, {name: 1}, {name: 2}]
    mergingList: [{name: 3, value: 3}]
  modified: {mergingList: [{name: 3, value: 3}, {name: 1}, {name: 2, value: 2}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 3}, {name: 1}, {name: 2}]
    mergingList: [{name: 3, value: 3}]
  result: {mergingList: [{name: 3, value: 3}, {name: 1, other: a}, {name: 2, value: 2, other: b}]}
- description: add multiple items in a list and preserve order
  original: {mergingList: [{name: 1}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 4}, {name: 2}, {name: 3}]
    mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]
  modified: {mergingList: [{name: 1}, {name: 4, value: 4}, {name: 2, value: 2}, {name: 3, value: 3}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 4}, {name: 2}, {name: 3}]
    mergingList: [{name: 4, value: 4}, {name: 3, value: 3}]
  result: {mergingList: [{name: 1, other: a}, {name: 4, value: 4}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}
- description: delete an item in a list and preserve order
  original: {mergingList: [{name: 1}, {name: 3, value: 3}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 2}, {name: 1}]
    mergingList: [{name: 3, $patch: delete}]
  modified: {mergingList: [{name: 2, value: 2}, {name: 1}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 2}, {name: 1}]
    mergingList: [{name: 3, $patch: delete}]
  result: {mergingList: [{name: 2, value: 2, other: b}, {name: 1, other: a}]}
- description: change an item in a list and preserve order
  original: {mergingList: [{name: 1}, {name: 3, value: 3}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 2}, {name: 3}, {name: 1}]
    mergingList: [{name: 3, value: x}]
  modified: {mergingList: [{name: 2, value: 2}, {name: 3, value: x}, {name: 1}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 2}, {name: 3}, {name: 1}]
    mergingList: [{name: 3, value: x}]
  result: {mergingList: [{name: 2, value: 2, other: b}, {name: 3, value: x}, {name: 1, other: a}]}
- description: add and delete an item in a list and preserve order
  original: {mergingList: [{name: 1}, {name: 3, value: 3}, {name: 2, value: 2}]}
  twoWay:
    $setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 1}]
    mergingList: [{name: 4, value: 4}, {name: 3, $patch: delete}]
  modified: {mergingList: [{name: 4, value: 4}, {name: 2, value: 2}, {name: 1}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 2, other: b}, {name: 3, value: 3}]}
  threeWay:
    $setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 1}]
    mergingList: [{name: 4, value: 4}, {name: 3, $patch: delete}]
  result: {mergingList: [{name: 4, value: 4}, {name: 2, value: 2, other: b}, {name: 1, other: a}]}
- description: set elements order in a list
  original: {mergingList: [{name: 1}, {name: 3, value: 3}, {name: 4, value: 4}, {name: 2, value: 2}]}
  twoWay: {$setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 3}, {name: 1}]}
  modified: {mergingList: [{name: 4, value: 4}, {name: 2, value: 2}, {name: 3, value: 3}, {name: 1}]}
  current: {mergingList: [{name: 1, other: a}, {name: 3, value: 3}, {name: 4, value: 4}, {name: 2, value: 2}]}
  threeWay: {$setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 3}, {name: 1}]}
  result: {mergingList: [{name: 4, value: 4}, {name: 2, value: 2}, {name: 3, value: 3}, {name: 1, other: a}]}
- description: set elements order in a list with server-only items
  original: {mergingList: [{name: 1}, {name: 3, value: 3}, {name: 4, value: 4}, {name: 2, value: 2}]}
  twoWay: {$setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 3}, {name: 1}]}
  modified: {mergingList: [{name: 4, value: 4}, {name: 2, value: 2}, {name: 3, value: 3}, {name: 1}]}
  current: {mergingList: [{name: 1, other: a}, {name: 3, value: 3}, {name: 4, value: 4}, {name: 2, value: 2}, {name: 9}]}
  threeWay: {$setElementOrder/mergingList: [{name: 4}, {name: 2}, {name: 3}, {name: 1}]}
  result: {mergingList: [{name: 4, value: 4}, {name: 2, value: 2}, {name: 3, value: 3}, {name: 1, other: a}, {name: 9}]}
- description: set elements order in a list with server-only items 2
  original: {mergingList: [{name: 1}, {name: 2, value: 2}, {name: 3, value: 3}, {name: 4, value: 4}]}
  twoWay: {$setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}]}
  modified: {mergingList: [{name: 2, value: 2}, {name: 1}, {name: 4, value: 4}, {name: 3, value: 3}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 2}, {name: 9}, {name: 3, value: 3}, {name: 4, value: 4}]}
  threeWay: {$setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}]}
  result: {mergingList: [{name: 2, value: 2}, {name: 1, other: a}, {name: 9}, {name: 4, value: 4}, {name: 3, value: 3}]}
- description: set elements order in a list with server-only items 3
  original: {mergingList: [{name: 1}, {name: 2, value: 2}, {name: 3, value: 3}, {name: 4, value: 4}]}
  twoWay: {$setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}]}
  modified: {mergingList: [{name: 2, value: 2}, {name: 1}, {name: 4, value: 4}, {name: 3, value: 3}]}
  current: {mergingList: [{name: 1, other: a}, {name: 2, value: 2}, {name: 7}, {name: 9}, {name: 8}, {name: 3, value: 3}, {name: 4, value: 4}]}
  threeWay: {$setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}]}
  result: {mergingList: [{name: 2, value: 2}, {name: 1, other: a}, {name: 7}, {name: 9}, {name: 8}, {name: 4, value: 4}, {name: 3, value: 3}]}
- description: add an item in a int list and preserve order
  original: {mergingIntList: [1, 2]}
  twoWay:
    $setElementOrder/mergingIntList: [3, 1, 2]
    mergingIntList: [3]
  modified: {mergingIntList: [3, 1, 2]}
  current: {mergingIntList: [1, 2]}
  threeWay:
    $setElementOrder/mergingIntList: [3, 1, 2]
    mergingIntList: [3]
  result: {mergingIntList: [3, 1, 2]}
- description: add multiple items in a int list and preserve order
  original: {mergingIntList: [1, 2]}
  twoWay:
    $setElementOrder/mergingIntList: [1, 4, 2, 3]
    mergingIntList: [4, 3]
  modified: {mergingIntList: [1, 4, 2, 3]}
  current: {mergingIntList: [1, 2]}
  threeWay:
    $setElementOrder/mergingIntList: [1, 4, 2, 3]
    mergingIntList: [4, 3]
  result: {mergingIntList: [1, 4, 2, 3]}
- description: delete an item in a int list and preserve order
  original: {mergingIntList: [1, 3, 2]}
  twoWay:
    $setElementOrder/mergingIntList: [2, 1]
    $deleteFromPrimitiveList/mergingIntList: [3]
  modified: {mergingIntList: [2, 1]}
  current: {mergingIntList: [1, 2, 3]}
  threeWay:
    $setElementOrder/mergingIntList: [2, 1]
    $deleteFromPrimitiveList/mergingIntList: [3]
  result: {mergingIntList: [2, 1]}
- description: add and delete an item in a int list and preserve order
  original: {mergingIntList: [1, 3, 2]}
  twoWay:
    $setElementOrder/mergingIntList: [4, 2, 1]
    mergingIntList: [4]
    $deleteFromPrimitiveList/mergingIntList: [3]
  modified: {mergingIntList: [4, 2, 1]}
  current: {mergingIntList: [1, 2, 3]}
  threeWay:
    $setElementOrder/mergingIntList: [4, 2, 1]
    mergingIntList: [4]
    $deleteFromPrimitiveList/mergingIntList: [3]
  result: {mergingIntList: [4, 2, 1]}
- description: set elements order in a int list
  original: {mergingIntList: [1, 3, 4, 2]}
  twoWay: {$setElementOrder/mergingIntList: [4, 2, 3, 1]}
  modified: {mergingIntList: [4, 2, 3, 1]}
  current: {mergingIntList: [1, 3, 4, 2]}
  threeWay: {$setElementOrder/mergingIntList: [4, 2, 3, 1]}
  result: {mergingIntList: [4, 2, 3, 1]}
- description: set elements order in a int list with server-only items
  original: {mergingIntList: [1, 3, 4, 2]}
  twoWay: {$setElementOrder/mergingIntList: [4, 2, 3, 1]}
  modified: {mergingIntList: [4, 2, 3, 1]}
  current: {mergingIntList: [1, 3, 4, 2, 9]}
  threeWay: {$setElementOrder/mergingIntList: [4, 2, 3, 1]}
  result: {mergingIntList: [4, 2, 3, 1, 9]}
- description: set elements order in a int list with server-only items 2
  original: {mergingIntList: [1, 2, 3, 4]}
  twoWay: {$setElementOrder/mergingIntList: [2, 1, 4, 3]}
  modified: {mergingIntList: [2, 1, 4, 3]}
  current: {mergingIntList: [1, 2, 9, 3, 4]}
  threeWay: {$setElementOrder/mergingIntList: [2, 1, 4, 3]}
  result: {mergingIntList: [2, 1, 9, 4, 3]}
- description: set elements order in a int list with server-only items 3
  original: {mergingIntList: [1, 2, 3, 4]}
  twoWay: {$setElementOrder/mergingIntList: [2, 1, 4, 3]}
  modified: {mergingIntList: [2, 1, 4, 3]}
  current: {mergingIntList: [1, 2, 7, 9, 8, 3, 4]}
  threeWay: {$setElementOrder/mergingIntList: [2, 1, 4, 3]}
  result: {mergingIntList: [2, 1, 7, 9, 8, 4, 3]}
- description: behavior of set element order for a merging list with duplicate
  original: {mergingList: [{name: 1}, {name: 2, value: dup1}, {name: 3}, {name: 2, value: dup2}, {name: 4}]}
  current: {mergingList: [{name: 1}, {name: 2, value: dup1}, {name: 3}, {name: 2, value: dup2}, {name: 4}]}
  modified: {mergingList: [{name: 2, value: dup1}, {name: 1}, {name: 4}, {name: 3}, {name: 2, value: dup2}]}
  twoWay: {$setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}, {name: 2}]}
  twoWayResult: {mergingList: [{name: 2, value: dup1}, {name: 2, value: dup2}, {name: 1}, {name: 4}, {name: 3}]}
  threeWay: {$setElementOrder/mergingList: [{name: 2}, {name: 1}, {name: 4}, {name: 3}, {name: 2}]}
  result: {mergingList: [{name: 2, value: dup1}, {name: 2, value: dup2}, {name: 1}, {name: 4}, {name: 3}]}
- description: behavior of set element order for a merging int list with duplicate
  original: {mergingIntList: [1, 2, 3, 2, 4]}
  current: {mergingIntList: [1, 2, 3, 2, 4]}
  modified: {mergingIntList: [2, 1, 4, 3, 2]}
  twoWay: {$setElementOrder/mergingIntList: [2, 1, 4, 3, 2]}
  twoWayResult: {mergingIntList: [2, 2, 1, 4, 3]}
  threeWay: {$setElementOrder/mergingIntList: [2, 1, 4, 3, 2]}
  result: {mergingIntList: [2, 2, 1, 4, 3]}
- description: retainKeys map should clear defaulted field
  original: {}
  current: {retainKeysMap: {value: foo}}
  modified: {retainKeysMap: {other: bar}}
  twoWay: {retainKeysMap: {other: bar}}
  threeWay: {retainKeysMap: {$retainKeys: [other], other: bar}}
  result: {retainKeysMap: {other: bar}}
- description: retainKeys map should clear defaulted field with conflict (discriminated union)
  original: {}
  current: {retainKeysMap: {name: type1, value: foo}}
  modified: {retainKeysMap: {name: type2, other: bar}}
  twoWay: {retainKeysMap: {name: type2, other: bar}}
  threeWay: {retainKeysMap: {$retainKeys: [name, other], name: type2, other: bar}}
  result: {retainKeysMap: {name: type2, other: bar}}
- description: retainKeys map adds a field
  original: {retainKeysMap: {name: foo}}
  current: {retainKeysMap: {name: foo}}
  modified: {retainKeysMap: {name: foo, value: bar}}
  twoWay: {retainKeysMap: {$retainKeys: [name, value], value: bar}}
  threeWay: {retainKeysMap: {$retainKeys: [name, value], value: bar}}
  result: {retainKeysMap: {name: foo, value: bar}}
- description: retainKeys map adds a field and clear a field
  original: {retainKeysMap: {name: foo}}
  current: {retainKeysMap: {name: foo, other: a}}
  modified: {retainKeysMap: {name: foo, value: bar}}
  twoWay: {retainKeysMap: {$retainKeys: [name, value], value: bar}}
  threeWay: {retainKeysMap: {$retainKeys: [name, value], value: bar}}
  result: {retainKeysMap: {name: foo, value: bar}}
- description: retainKeys map deletes a field
  original: {retainKeysMap: {name: foo, value: bar}}
  current: {retainKeysMap: {name: foo, value: bar}}
  modified: {retainKeysMap: {name: foo}}
  twoWay: {retainKeysMap: {$retainKeys: [name], value: null}}
  threeWay: {retainKeysMap: {$retainKeys: [name], value: null}}
  result: {retainKeysMap: {name: foo}}
- description: retainKeys map deletes a field and clears a field
  original: {retainKeysMap: {name: foo, value: bar}}
  current: {retainKeysMap: {name: foo, value: bar, other: a}}
  modified: {retainKeysMap: {name: foo}}
  twoWay: {retainKeysMap: {$retainKeys: [name], value: null}}
  threeWay: {retainKeysMap: {$retainKeys: [name], value: null}}
  result: {retainKeysMap: {name: foo}}
- description: retainKeys map clears a field
  original: {retainKeysMap: {name: foo, value: bar}}
  current: {retainKeysMap: {name: foo, value: bar, other: a}}
  modified: {retainKeysMap: {name: foo, value: bar}}
  twoWay: {}
  threeWay: {retainKeysMap: {$retainKeys: [name, value]}}
  result: {retainKeysMap: {name: foo, value: bar}}
- description: retainKeys map nested map with no change
  original: {retainKeysMap: {name: foo, simpleMap: {key1: a}}}
  current: {retainKeysMap: {name: foo, simpleMap: {key1: a}}}
  modified: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: a}}}
  twoWay: {retainKeysMap: {$retainKeys: [name, simpleMap, value], value: bar}}
  threeWay: {retainKeysMap: {$retainKeys: [name, simpleMap, value], value: bar}}
  result: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: a}}}
- description: retainKeys map adds a field in a nested map
  original: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: a}}}
  current: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: a, key3: c}}}
  modified: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: a, key2: b}}}
  twoWay: {retainKeysMap: {$retainKeys: [name, simpleMap, value], simpleMap: {key2: b}}}
  threeWay: {retainKeysMap: {$retainKeys: [name, simpleMap, value], simpleMap: {key2: b}}}
  result: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: a, key2: b, key3: c}}}
- description: retainKeys map deletes a field in a nested map
  original: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: a, key2: b}}}
  current: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: a, key2: b, key3: c}}}
  modified: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: a}}}
  twoWay: {retainKeysMap: {$retainKeys: [name, simpleMap, value], simpleMap: {key2: null}}}
  threeWay: {retainKeysMap: {$retainKeys: [name, simpleMap, value], simpleMap: {key2: null}}}
  result: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: a, key3: c}}}
- description: retainKeys map changes a field in a nested map
  original: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: a, key2: b}}}
  current: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: a, key2: b, key3: c}}}
  modified: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: x, key2: b}}}
  twoWay: {retainKeysMap: {$retainKeys: [name, simpleMap, value], simpleMap: {key1: x}}}
  threeWay: {retainKeysMap: {$retainKeys: [name, simpleMap, value], simpleMap: {key1: x}}}
  result: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: x, key2: b, key3: c}}}
- description: retainKeys map changes a field in a nested map with conflict
  original: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: old, key2: b}}}
  current: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: new, key2: b, key3: c}}}
  modified: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: modified, key2: b}}}
  twoWay: {retainKeysMap: {$retainKeys: [name, simpleMap, value], simpleMap: {key1: modified}}}
  threeWay: {retainKeysMap: {$retainKeys: [name, simpleMap, value], simpleMap: {key1: modified}}}
  result: {retainKeysMap: {name: foo, value: bar, simpleMap: {key1: modified, key2: b, key3: c}}}
- description: retainKeys map replaces non-merging list
  original: {retainKeysMap: {name: foo, value: bar, nonMergingList: [{name: a}, {name: b}]}}
  current: {retainKeysMap: {name: foo, value: bar, nonMergingList: [{name: a}, {name: b}]}}
  modified: {retainKeysMap: {name: foo, value: bar, nonMergingList: [{name: a}, {name: c}, {name: b}]}}
  twoWay: {retainKeysMap: {$retainKeys: [name, nonMergingList, value], nonMergingList: [{name: a}, {name: c}, {name: b}]}}
  threeWay: {retainKeysMap: {$retainKeys: [name, nonMergingList, value], nonMergingList: [{name: a}, {name: c}, {name: b}]}}
  result: {retainKeysMap: {name: foo, value: bar, nonMergingList: [{name: a}, {name: c}, {name: b}]}}
- description: retainKeys map nested non-merging list with no change
  original: {retainKeysMap: {name: foo, nonMergingList: [{name: a}, {name: b}]}}
  current: {retainKeysMap: {name: foo, nonMergingList: [{name: a}, {name: b}]}}
  modified: {retainKeysMap: {name: foo, value: bar, nonMergingList: [{name: a}, {name: b}]}}
  twoWay: {retainKeysMap: {$retainKeys: [name, nonMergingList, value], value: bar}}
  threeWay: {retainKeysMap: {$retainKeys: [name, nonMergingList, value], value: bar}}
  result: {retainKeysMap: {name: foo, value: bar, nonMergingList: [{name: a}, {name: b}]}}
- description: retainKeys map nested non-merging list with no change with conflict
  original: {retainKeysMap: {name: foo, nonMergingList: [{name: a}, {name: b}]}}
  current: {retainKeysMap: {name: foo, nonMergingList: [{name: a}, {name: b}, {name: c}]}}
  modified: {retainKeysMap: {name: foo, value: bar, nonMergingList: [{name: a}, {name: b}]}}
  twoWay: {retainKeysMap: {$retainKeys: [name, nonMergingList, value], value: bar}}
  threeWay: {retainKeysMap: {$retainKeys: [name, nonMergingList, value], value: bar, nonMergingList: [{name: a}, {name: b}]}}
  result: {retainKeysMap: {name: foo, value: bar, nonMergingList: [{name: a}, {name: b}]}}
- description: retainKeys map deletes nested non-merging list
  original: {retainKeysMap: {name: foo, nonMergingList: [{name: a}, {name: b}]}}
  current: {retainKeysMap: {name: foo, nonMergingList: [{name: a}, {name: b}]}}
  modified: {retainKeysMap: {name: foo, value: bar}}
  twoWay: {retainKeysMap: {$retainKeys: [name, value], value: bar, nonMergingList: null}}
  threeWay: {retainKeysMap: {$retainKeys: [name, value], value: bar, nonMergingList: null}}
  result: {retainKeysMap: {name: foo, value: bar}}
- description: retainKeys map delete nested non-merging list with conflict
  original: {retainKeysMap: {name: foo, nonMergingList: [{name: a}, {name: b}]}}
  current: {retainKeysMap: {name: foo, nonMergingList: [{name: a}, {name: b}, {name: c}]}}
  modified: {retainKeysMap: {name: foo, value: bar}}
  twoWay: {retainKeysMap: {$retainKeys: [name, value], value: bar, nonMergingList: null}}
  threeWay: {retainKeysMap: {$retainKeys: [name, value], value: bar, nonMergingList: null}}
  result: {retainKeysMap: {name: foo, value: bar}}
- description: retainKeys map nested merging int list with no change
  original: {retainKeysMap: {name: foo, mergingIntList: [1, 2]}}
  current: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 3]}}
  modified: {retainKeysMap: {name: foo, value: bar, mergingIntList: [1, 2]}}
  twoWay: {retainKeysMap: {$retainKeys: [mergingIntList, name, value], value: bar}}
  threeWay: {retainKeysMap: {$retainKeys: [mergingIntList, name, value], $setElementOrder/mergingIntList: [1, 2], value: bar}}
  result: {retainKeysMap: {name: foo, value: bar, mergingIntList: [1, 2, 3]}}
- description: retainKeys map adds an item in nested merging int list
  original: {retainKeysMap: {name: foo, mergingIntList: [1, 2]}}
  current: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 3]}}
  modified: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 4]}}
  twoWay: {retainKeysMap: {$setElementOrder/mergingIntList: [1, 2, 4], $retainKeys: [mergingIntList, name], mergingIntList: [4]}}
  threeWay: {retainKeysMap: {$setElementOrder/mergingIntList: [1, 2, 4], $retainKeys: [mergingIntList, name], mergingIntList: [4]}}
  result: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 4, 3]}}
- description: retainKeys map deletes an item in nested merging int list
  original: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 3]}}
  current: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 3, 4]}}
  modified: {retainKeysMap: {name: foo, mergingIntList: [1, 3]}}
  twoWay: {retainKeysMap: {$retainKeys: [mergingIntList, name], $deleteFromPrimitiveList/mergingIntList: [2], $setElementOrder/mergingIntList: [1, 3]}}
  threeWay: {retainKeysMap: {$retainKeys: [mergingIntList, name], $deleteFromPrimitiveList/mergingIntList: [2], $setElementOrder/mergingIntList: [1, 3]}}
  result: {retainKeysMap: {name: foo, mergingIntList: [1, 3, 4]}}
- description: retainKeys map adds an item and deletes an item in nested merging int list
  original: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 3]}}
  current: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 3, 4]}}
  modified: {retainKeysMap: {name: foo, mergingIntList: [1, 3, 5]}}
  twoWay: {retainKeysMap: {$retainKeys: [mergingIntList, name], mergingIntList: [5], $deleteFromPrimitiveList/mergingIntList: [2], $setElementOrder/mergingIntList: [1, 3, 5]}}
  threeWay: {retainKeysMap: {$retainKeys: [mergingIntList, name], mergingIntList: [5], $deleteFromPrimitiveList/mergingIntList: [2], $setElementOrder/mergingIntList: [1, 3, 5]}}
  result: {retainKeysMap: {name: foo, mergingIntList: [1, 3, 5, 4]}}
- description: retainKeys map deletes nested merging int list
  original: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 3]}}
  current: {retainKeysMap: {name: foo, mergingIntList: [1, 2, 3]}}
  modified: {retainKeysMap: {name: foo}}
  twoWay: {retainKeysMap: {$retainKeys: [name], mergingIntList: null}}
  threeWay: {retainKeysMap: {$retainKeys: [name], mergingIntList: null}}
  result: {retainKeysMap: {name: foo}}
- description: retainKeys map nested merging list with no change
  original: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}]}}
  current: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}, {name: c}]}}
  modified: {retainKeysMap: {name: foo, value: bar, mergingList: [{name: a}, {name: b}]}}
  twoWay: {retainKeysMap: {$retainKeys: [mergingList, name, value], value: bar}}
  threeWay: {retainKeysMap: {$retainKeys: [mergingList, name, value], $setElementOrder/mergingList: [{name: a}, {name: b}], value: bar}}
  result: {retainKeysMap: {name: foo, value: bar, mergingList: [{name: a}, {name: b}, {name: c}]}}
- description: retainKeys map adds an item in nested merging list
  original: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}]}}
  current: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}, {name: x}]}}
  modified: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}, {name: c}]}}
  twoWay: {retainKeysMap: {$retainKeys: [mergingList, name], $setElementOrder/mergingList: [{name: a}, {name: b}, {name: c}], mergingList: [{name: c}]}}
  threeWay: {retainKeysMap: {$retainKeys: [mergingList, name], $setElementOrder/mergingList: [{name: a}, {name: b}, {name: c}], mergingList: [{name: c}]}}
  result: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}, {name: c}, {name: x}]}}
- description: retainKeys map changes an item in nested merging list
  original: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b, value: foo}]}}
  current: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b, value: foo}, {name: x}]}}
  modified: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b, value: bar}]}}
  twoWay: {retainKeysMap: {$retainKeys: [mergingList, name], $setElementOrder/mergingList: [{name: a}, {name: b}], mergingList: [{name: b, value: bar}]}}
  threeWay: {retainKeysMap: {$retainKeys: [mergingList, name], $setElementOrder/mergingList: [{name: a}, {name: b}], mergingList: [{name: b, value: bar}]}}
  result: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b, value: bar}, {name: x}]}}
- description: retainKeys map deletes nested merging list
  original: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}]}}
  current: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}]}}
  modified: {retainKeysMap: {name: foo, value: bar}}
  twoWay: {retainKeysMap: {$retainKeys: [name, value], value: bar, mergingList: null}}
  threeWay: {retainKeysMap: {$retainKeys: [name, value], value: bar, mergingList: null}}
  result: {retainKeysMap: {name: foo, value: bar}}
- description: retainKeys map deletes an item in nested merging list
  original: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}]}}
  current: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: b}, {name: x}]}}
  modified: {retainKeysMap: {name: foo, mergingList: [{name: a}]}}
  twoWay: {retainKeysMap: {$retainKeys: [mergingList, name], $setElementOrder/mergingList: [{name: a}], mergingList: [{name: b, $patch: delete}]}}
  threeWay: {retainKeysMap: {$retainKeys: [mergingList, name], $setElementOrder/mergingList: [{name: a}], mergingList: [{name: b, $patch: delete}]}}
  result: {retainKeysMap: {name: foo, mergingList: [{name: a}, {name: x}]}}
- description: retainKeys list of maps clears a field
  original: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
  current: {retainKeysMergingList: [{name: bar}, {name: foo, value: a, other: x}]}
  modified: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
  twoWay: {}
  threeWay:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name, value], name: foo}]
  result: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
- description: retainKeys list of maps clears a field with conflict
  original: {retainKeysMergingList: [{name: bar}, {name: foo, value: old}]}
  current: {retainKeysMergingList: [{name: bar}, {name: foo, value: new, other: x}]}
  modified: {retainKeysMergingList: [{name: bar}, {name: foo, value: modified}]}
  twoWay:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name, value], name: foo, value: modified}]
  threeWay:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name, value], name: foo, value: modified}]
  result: {retainKeysMergingList: [{name: bar}, {name: foo, value: modified}]}
- description: retainKeys list of maps changes a field and clear a field
  original: {retainKeysMergingList: [{name: bar}, {name: foo, value: old}]}
  current: {retainKeysMergingList: [{name: bar}, {name: foo, value: old, other: x}]}
  modified: {retainKeysMergingList: [{name: bar}, {name: foo, value: new}]}
  twoWay:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name, value], name: foo, value: new}]
  threeWay:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name, value], name: foo, value: new}]
  result: {retainKeysMergingList: [{name: bar}, {name: foo, value: new}]}
- description: retainKeys list of maps changes a field and clear a field with conflict
  original: {retainKeysMergingList: [{name: bar}, {name: foo, value: old}]}
  current: {retainKeysMergingList: [{name: bar}, {name: foo, value: modified, other: x}]}
  modified: {retainKeysMergingList: [{name: bar}, {name: foo, value: new}]}
  twoWay:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name, value], name: foo, value: new}]
  threeWay:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name, value], name: foo, value: new}]
  result: {retainKeysMergingList: [{name: bar}, {name: foo, value: new}]}
- description: retainKeys list of maps adds a field
  original: {retainKeysMergingList: [{name: bar}, {name: foo}]}
  current: {retainKeysMergingList: [{name: bar}, {name: foo}]}
  modified: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
  twoWay:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name, value], name: foo, value: a}]
  threeWay:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name, value], name: foo, value: a}]
  result: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
- description: retainKeys list of maps adds a field and clear a field
  original: {retainKeysMergingList: [{name: bar}, {name: foo}]}
  current: {retainKeysMergingList: [{name: bar}, {name: foo, other: x}]}
  modified: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
  twoWay:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name, value], name: foo, value: a}]
  threeWay:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name, value], name: foo, value: a}]
  result: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
- description: retainKeys list of maps deletes a field
  original: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
  current: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
  modified: {retainKeysMergingList: [{name: bar}, {name: foo}]}
  twoWay:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name], name: foo, value: null}]
  threeWay:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name], name: foo, value: null}]
  result: {retainKeysMergingList: [{name: bar}, {name: foo}]}
- description: retainKeys list of maps deletes a field and clear a field
  original: {retainKeysMergingList: [{name: bar}, {name: foo, value: a}]}
  current: {retainKeysMergingList: [{name: bar}, {name: foo, value: a, other: x}]}
  modified: {retainKeysMergingList: [{name: bar}, {name: foo}]}
  twoWay:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name], name: foo, value: null}]
  threeWay:
    $setElementOrder/retainKeysMergingList: [{name: bar}, {name: foo}]
    retainKeysMergingList: [{$retainKeys: [name], name: foo, value: null}]
  result: {retainKeysMergingList: [{name: bar}, {name: foo}]}
- description: delete and reorder in one list, reorder in another
  original: {mergingList: [{name: a, value: a}, {name: b, value: b}], mergeItemPtr: [{name: c, value: c}, {name: d, value: d}]}
  current: {mergingList: [{name: a, value: a}, {name: b, value: b}], mergeItemPtr: [{name: c, value: c}, {name: d, value: d}]}
  modified: {mergingList: [{name: b, value: b}], mergeItemPtr: [{name: d, value: d}, {name: c, value: c}]}
  twoWay:
    $setElementOrder/mergingList: [{name: b}]
    $setElementOrder/mergeItemPtr: [{name: d}, {name: c}]
    mergingList: [{$patch: delete, name: a}]
  threeWay:
    $setElementOrder/mergingList: [{name: b}]
    $setElementOrder/mergeItemPtr: [{name: d}, {name: c}]
    mergingList: [{$patch: delete, name: a}]
  result: {mergingList: [{name: b, value: b}], mergeItemPtr: [{name: d, value: d}, {name: c, value: c}]}
# replaceRawExtensionPatchTestCases
- description: replace RawExtension field, rest unchanched
  original: {name: my-object, value: some-value, other: current-other, replacingItem: {Some: Generic, Yaml: Inside, The: RawExtension, Field: Period}}
  current: {name: my-object, value: some-value, other: current-other, mergingList: [{name: 1}, {name: 2}, {name: 3}], replacingItem: {Some: Generic, Yaml: Inside, The: RawExtension, Field: Period}}
  modified: {name: my-object, value: some-value, other: current-other, mergingList: [{name: 1}, {name: 2}, {name: 3}], replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}}
  twoWay: {mergingList: [{name: 1}, {name: 2}, {name: 3}], replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}}
  twoWayResult: {name: my-object, value: some-value, other: current-other, mergingList: [{name: 1}, {name: 2}, {name: 3}], replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}}
  threeWay: {replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}}
  result: {name: my-object, value: some-value, other: current-other, mergingList: [{name: 1}, {name: 2}, {name: 3}], replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}}
- description: replace RawExtension field and merge list
  original: {name: my-object, value: some-value, other: current-other, mergingList: [{name: 1}], replacingItem: {Some: Generic, Yaml: Inside, The: RawExtension, Field: Period}}
  current: {name: my-object, value: some-value, other: current-other, mergingList: [{name: 1}, {name: 3}], replacingItem: {Some: Generic, Yaml: Inside, The: RawExtension, Field: Period}}
  modified: {name: my-object, value: some-value, other: current-other, mergingList: [{name: 1}, {name: 2}], replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}}
  twoWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 2}]
    replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}
  twoWayResult: {name: my-object, value: some-value, other: current-other, mergingList: [{name: 1}, {name: 2}], replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}}
  threeWay:
    $setElementOrder/mergingList: [{name: 1}, {name: 2}]
    mergingList: [{name: 2}]
    replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}
  result: {name: my-object, value: some-value, other: current-other, mergingList: [{name: 1}, {name: 2}, {name: 3}], replacingItem: {Newly: Modified, Yaml: Inside, The: RawExtension}}
# TestUnknownField (fields absent from the schema)
- description: "unknown fields: no diff"
  original: {array: [1, 2, 3], complex: {nested: true}, name: foo, scalar: true}
  twoWay: {}
  modified: {array: [1, 2, 3], complex: {nested: true}, name: foo, scalar: true}
- description: "unknown fields: no diff even if modified null"
  original: {array: [1, 2, 3], complex: {nested: true}, name: foo, scalar: true}
  twoWay: {complex_nullable: {key: null}}
  twoWayResult: {array: [1, 2, 3], complex: {nested: true}, complex_nullable: {}, name: foo, scalar: true}
- description: "unknown fields: discard nulls in nested and adds not nulls"
  original: {array: [1, 2, 3], complex: {nested: true}, name: foo, scalar: true}
  twoWay: {complex_nullable: {key: {keynotnull: value, keynull: null}}}
  twoWayResult: {array: [1, 2, 3], complex: {nested: true}, complex_nullable: {key: {keynotnull: value}}, name: foo, scalar: true}
- description: "unknown fields: discard if modified all nulls"
  original: {}
  twoWay: {complex: {nested: null}}
  twoWayResult: {complex: {}}
- description: "unknown fields: add only not nulls"
  original: {}
  twoWay: {complex: {nested: null, nested2: foo}}
  twoWayResult: {complex: {nested2: foo}}
- description: "unknown fields: null values in original are preserved"
  original: {thing: null}
  twoWay: {nested: {value: 5}}
  twoWayResult: {nested: {value: 5}, thing: null}
- description: "unknown fields: nested null values in original are preserved"
  original: {complex: {key: null}, thing: null}
  twoWay: {nested: {value: 5}}
  twoWayResult: {complex: {key: null}, nested: {value: 5}, thing: null}
- description: "unknown fields: add empty slices"
  original: {array: [1, 2, 3], complex: {nested: true}, name: foo, scalar: true}
  twoWay: {complex_nullable: []}
  twoWayResult: {array: [1, 2, 3], complex: {nested: true}, complex_nullable: [], name: foo, scalar: true}
- description: "unknown fields: filter nulls from nested slices"
  original: {}
  twoWay: {complex_nullable: [{inner_one: {key_one: foo, key_two: null}}]}
  twoWayResult: {complex_nullable: [{inner_one: {key_one: foo}}]}
- description: "unknown fields: filter if slice is all empty"
  original: {}
  twoWay: {complex_nullable: [{inner_one: {key_one: null, key_two: null}}]}
  twoWayResult: {complex_nullable: [{inner_one: {}}]}
- description: "unknown fields: not filter nulls from non-associative slice"
  original: {}
  twoWay: {complex_nullable: [key1, null, key2]}
  twoWayResult: {complex_nullable: [key1, null, key2]}
- description: "unknown fields: added only"
  original: {name: foo}
  twoWay: {array: [1, 2, 3], complex: {nested: true}, scalar: true}
  twoWayResult: {array: [1, 2, 3], complex: {nested: true}, name: foo, scalar: true}
- description: "unknown fields: removed only"
  original: {name: foo, scalar: true, complex: {nested: true}}
  twoWay: {complex: null, scalar: null}
  twoWayResult: {name: foo}
  current: {name: foo, scalar: true, complex: {nested: true}, array: [1, 2, 3]}
  threeWay: {complex: null, scalar: null}
  result: {array: [1, 2, 3], name: foo}
`) as ApimachineryCase[];

function expectPatchError(apply: () => unknown, status: number, message: string): PatchError {
  let thrown: unknown;
  try {
    apply();
  } catch (err) {
    thrown = err;
  }
  expect(thrown, 'a PatchError').to.be.instanceOf(PatchError);
  const error = thrown as PatchError;
  expect(error.status).to.equal(status);
  expect(error.message).to.equal(message);
  return error;
}

describe('strategic merge patch', () => {
  describe('apimachinery patch_test.go cases', () => {
    for (const c of apimachineryCases) {
      const twoWayResult = c.twoWayResult ?? c.modified;
      if (c.expectedError) {
        it(`${c.description}: fails`, () => {
          expect(() => strategicMergePatch(c.original ?? {}, c.twoWay, mergeItem))
            .to.throw(PatchError)
            .with.property('message')
            .that.contains(c.expectedError);
        });
      } else if (c.twoWay !== undefined && twoWayResult) {
        it(`${c.description} (two-way patch)`, () => {
          expect(strategicMergePatch(c.original ?? {}, c.twoWay, mergeItem)).to.deep.equal(twoWayResult);
        });
      }
      if (c.current && c.threeWay !== undefined && c.result) {
        it(`${c.description} (three-way patch)`, () => {
          expect(strategicMergePatch(c.current!, c.threeWay, mergeItem)).to.deep.equal(c.result);
        });
      }
    }
  });

  describe('directives and errors', () => {
    it('leaves its inputs unmodified', () => {
      const original = { mergingList: [{ name: 1, value: 'a' }], simpleMap: { key: 'v' } };
      const patch = { mergingList: [{ name: 1, $patch: 'delete' }], simpleMap: { key: null } };
      const before = structuredClone({ original, patch });
      strategicMergePatch(original, patch, mergeItem);
      expect({ original, patch }).to.deep.equal(before);
    });

    it('treats a null patch as no change and refuses a patch that is not an object', () => {
      expect(strategicMergePatch({ name: 'a' }, null, mergeItem)).to.deep.equal({ name: 'a' });
      expectPatchError(
        () => strategicMergePatch({}, [1], mergeItem),
        400,
        'json: cannot unmarshal array into Go value of type map[string]interface {}',
      );
      expectPatchError(
        () => strategicMergePatch({}, 'x', mergeItem),
        400,
        'json: cannot unmarshal string into Go value of type map[string]interface {}',
      );
    });

    it('answers a list item without its merge key with a 500 naming the item', () => {
      expectPatchError(
        () =>
          strategicMergePatch({ mergingList: [{ name: 'a' }] }, { mergingList: [{ value: 'b', other: 2 }] }, mergeItem),
        500,
        'map: map[other:2 value:b] does not contain declared merge key: name',
      );
    });

    it('answers an unknown $patch directive with a 500', () => {
      expectPatchError(
        () => strategicMergePatch({ simpleMap: { a: '1' } }, { simpleMap: { $patch: 'bogus' } }, mergeItem),
        500,
        'unknown patch type: bogus in map: map[$patch:bogus]',
      );
      expectPatchError(
        () =>
          strategicMergePatch(
            { mergingList: [{ name: 'a' }] },
            { mergingList: [{ name: 'a', $patch: 'merge' }] },
            mergeItem,
          ),
        500,
        'merging lists cannot yet be specified in the patch',
      );
    });

    it('answers a $patch: merge map with a 500, since maps know only replace and delete', () => {
      expectPatchError(
        () => strategicMergePatch({ simpleMap: {} }, { simpleMap: { $patch: 'merge', a: '1' } }, mergeItem),
        500,
        'unknown patch type: merge in map: map[$patch:merge a:1]',
      );
    });

    it('answers malformed directives with a 400', () => {
      expectPatchError(
        () =>
          strategicMergePatch({ retainKeysMap: { name: 'a' } }, { retainKeysMap: { $retainKeys: 'name' } }, mergeItem),
        400,
        'invalid patch format of retainKeys',
      );
      expectPatchError(
        () =>
          strategicMergePatch(
            { retainKeysMap: { name: 'a' } },
            { retainKeysMap: { $retainKeys: ['name'], value: 'v' } },
            mergeItem,
          ),
        400,
        'invalid patch format of retainKeys',
      );
      expectPatchError(
        () => strategicMergePatch({ mergingIntList: [1] }, { $deleteFromPrimitiveListmergingIntList: [1] }, mergeItem),
        400,
        'invalid patch format of primitive list',
      );
      expectPatchError(
        () => strategicMergePatch({ mergingIntList: [1] }, { '$setElementOrderX/mergingIntList': [1] }, mergeItem),
        400,
        'invalid patch format of setElementOrder list',
      );
    });

    it('answers lists of lists with the generic 422', () => {
      const error = expectPatchError(
        () => strategicMergePatch({ mergingIntList: [[1]] }, { mergingIntList: [[2]] }, mergeItem),
        422,
        'the server rejected our request due to an error in our request',
      );
      expect(error.detail).to.equal('lists of lists are not supported');
    });

    it('answers a patch list out of its $setElementOrder with a 500 quoting both lists', () => {
      expectPatchError(
        () =>
          strategicMergePatch(
            { mergingIntList: [1, 2] },
            { '$setElementOrder/mergingIntList': [1, 2], mergingIntList: [2, 1] },
            mergeItem,
          ),
        500,
        "the order in patch list:\n[2 1]\n doesn't match $setElementOrder list:\n[1 2]",
      );
    });

    it('drops directives carried into fields the original lacks, as decoding into the typed object does', () => {
      const patched = strategicMergePatch(
        {},
        {
          retainKeysMap: {
            $retainKeys: ['name'],
            name: 'a',
            '$setElementOrder/mergingList': [{ name: 'x' }],
            mergingList: [{ name: 'x' }],
          },
          nonMergingList: [{ name: 'y', $patch: 'delete' }, { name: 'z' }],
        },
        mergeItem,
      );
      expect(patched).to.deep.equal({
        retainKeysMap: { name: 'a', mergingList: [{ name: 'x' }] },
        nonMergingList: [{ name: 'z' }],
      });
    });

    it('takes a replace-strategy field from the patch as it is, less directive keys', () => {
      const patched = strategicMergePatch(
        { replacingItem: { a: 1, b: 2 } },
        { replacingItem: { a: null, $retainKeys: ['a'] } },
        mergeItem,
      );
      expect(patched).to.deep.equal({ replacingItem: { a: null } });
    });
  });
});

/** A Deployment as the API server stores it: defaulted fields, a mutating webhook's env var, status. */
function liveDeployment() {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: 'web',
      namespace: 'default',
      uid: 'd1',
      labels: { app: 'web' },
      annotations: {
        'kubectl.kubernetes.io/last-applied-configuration': '{"old":true}',
        'deployment.kubernetes.io/revision': '1',
      },
      finalizers: ['example.com/keep'],
    },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [
            {
              name: 'web',
              image: 'nginx:1.25',
              ports: [{ containerPort: 80, protocol: 'TCP' }],
              env: [
                { name: 'A', value: '1' },
                { name: 'INJECTED', value: 'webhook' },
              ],
              imagePullPolicy: 'IfNotPresent',
              terminationMessagePath: '/dev/termination-log',
            },
          ],
          volumes: [{ name: 'data', emptyDir: {} }],
          tolerations: [
            { key: 'a', operator: 'Exists' },
            { key: 'b', operator: 'Exists' },
          ],
          restartPolicy: 'Always',
        },
      },
    },
    status: {
      replicas: 2,
      conditions: [
        { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' },
        { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
      ],
    },
  };
}

const deploymentKind = { group: 'apps', version: 'v1', kind: 'Deployment' };

describe('strategic merge patch of built-in kinds', () => {
  it('applies what kubectl apply sends for a changed image, a new env var and an added container', () => {
    const patch = {
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"new":true}' } },
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'web' }, { name: 'log-tailer' }],
            containers: [
              {
                '$setElementOrder/env': [{ name: 'A' }, { name: 'B' }],
                env: [{ name: 'B', value: '2' }],
                image: 'nginx:1.27',
                name: 'web',
              },
              { name: 'log-tailer', image: 'busybox:1.36', args: ['tail', '-f', '/var/log/app.log'] },
            ],
          },
        },
      },
    };
    const patched = applyPatch('application/strategic-merge-patch+json', liveDeployment(), patch, deploymentKind, true);

    const expected = liveDeployment();
    expected.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'] = '{"new":true}';
    const web = expected.spec.template.spec.containers[0];
    web.image = 'nginx:1.27';
    // Patch items in the patch's order; the webhook's variable stays after its server-side neighbour.
    web.env = [
      { name: 'A', value: '1' },
      { name: 'B', value: '2' },
      { name: 'INJECTED', value: 'webhook' },
    ];
    (expected.spec.template.spec.containers as object[]).push({
      name: 'log-tailer',
      image: 'busybox:1.36',
      args: ['tail', '-f', '/var/log/app.log'],
    });
    expect(patched).to.deep.equal(expected);
  });

  it('reorders containers by $setElementOrder and deletes one with $patch: delete', () => {
    const live = liveDeployment();
    live.spec.template.spec.containers.push(
      { ...live.spec.template.spec.containers[0], name: 'sidecar' },
      { ...live.spec.template.spec.containers[0], name: 'old' },
    );
    const patch = {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'web' }],
            containers: [{ name: 'old', $patch: 'delete' }],
          },
        },
      },
    };
    const patched = applyPatch(
      'application/strategic-merge-patch+json',
      live,
      patch,
      deploymentKind,
      true,
    ) as ReturnType<typeof liveDeployment>;
    expect(patched.spec.template.spec.containers.map((c) => c.name)).to.deep.equal(['sidecar', 'web']);
  });

  it('clears the fields $retainKeys omits: a Deployment strategy switched to Recreate, a volume switched to a ConfigMap', () => {
    const patch = {
      spec: {
        strategy: { $retainKeys: ['type'], type: 'Recreate' },
        template: {
          spec: { volumes: [{ $retainKeys: ['configMap', 'name'], name: 'data', configMap: { name: 'settings' } }] },
        },
      },
    };
    const patched = applyPatch(
      'application/strategic-merge-patch+json',
      liveDeployment(),
      patch,
      deploymentKind,
      true,
    ) as ReturnType<typeof liveDeployment>;
    expect(patched.spec.strategy).to.deep.equal({ type: 'Recreate' });
    expect(patched.spec.template.spec.volumes).to.deep.equal([{ name: 'data', configMap: { name: 'settings' } }]);
  });

  it('replaces untagged lists such as tolerations, and deletes labels set to null', () => {
    const patch = {
      metadata: { labels: { app: null, tier: 'web' } },
      spec: { template: { spec: { tolerations: [{ key: 'c', operator: 'Exists' }] } } },
    };
    const patched = applyPatch(
      'application/strategic-merge-patch+json',
      liveDeployment(),
      patch,
      deploymentKind,
      true,
    ) as ReturnType<typeof liveDeployment>;
    expect(patched.metadata.labels).to.deep.equal({ tier: 'web' });
    expect(patched.spec.template.spec.tolerations).to.deep.equal([{ key: 'c', operator: 'Exists' }]);
  });

  it('merges finalizers as a set, removing with $deleteFromPrimitiveList, and status conditions by type', () => {
    const patch = {
      metadata: { finalizers: ['example.com/other'], '$deleteFromPrimitiveList/finalizers': ['example.com/keep'] },
      status: { conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }] },
    };
    const patched = applyPatch(
      'application/strategic-merge-patch+json',
      liveDeployment(),
      patch,
      deploymentKind,
      true,
    ) as ReturnType<typeof liveDeployment>;
    expect(patched.metadata.finalizers).to.deep.equal(['example.com/other']);
    expect(patched.status.conditions).to.deep.equal([
      { type: 'Available', status: 'True', reason: 'MinimumReplicasAvailable' },
      { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' },
    ]);
  });

  it('merges Service ports by port: one added in order, one deleted', () => {
    const service = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        type: 'ClusterIP',
        clusterIP: '10.0.0.10',
        ports: [
          { name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 },
          { name: 'metrics', port: 9090, protocol: 'TCP', targetPort: 9090 },
        ],
      },
    };
    const patch = {
      spec: {
        '$setElementOrder/ports': [{ port: 80 }, { port: 443 }],
        ports: [
          { name: 'https', port: 443, targetPort: 8443 },
          { port: 9090, $patch: 'delete' },
        ],
      },
    };
    const patched = applyPatch(
      'application/strategic-merge-patch+json',
      service,
      patch,
      { group: '', version: 'v1', kind: 'Service' },
      true,
    );
    expect(patched).to.deep.equal({
      ...service,
      spec: {
        ...service.spec,
        ports: [
          { name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 },
          { name: 'https', port: 443, targetPort: 8443 },
        ],
      },
    });
  });

  it('merges the pod template of a CronJob by container name', () => {
    const cronJob = {
      spec: {
        schedule: '* * * * *',
        jobTemplate: {
          spec: { template: { spec: { containers: [{ name: 'job', image: 'a:1', command: ['run'] }] } } },
        },
      },
    };
    const patch = {
      spec: { jobTemplate: { spec: { template: { spec: { containers: [{ name: 'job', image: 'a:2' }] } } } } },
    };
    const patched = applyPatch(
      'application/strategic-merge-patch+json',
      cronJob,
      patch,
      { group: 'batch', version: 'v1', kind: 'CronJob' },
      true,
    );
    expect(patched).to.deep.equal({
      spec: {
        schedule: '* * * * *',
        jobTemplate: {
          spec: { template: { spec: { containers: [{ name: 'job', image: 'a:2', command: ['run'] }] } } },
        },
      },
    });
  });

  it('merges ownerReferences by uid on any built-in kind, and Secret data as a map', () => {
    const secret = {
      metadata: { name: 's', ownerReferences: [{ uid: 'u1', kind: 'Deployment', name: 'a' }] },
      data: { a: 'YQ==', b: 'Yg==' },
    };
    const patch = {
      metadata: { ownerReferences: [{ uid: 'u2', kind: 'Job', name: 'b' }] },
      data: { b: null, c: 'Yw==' },
    };
    const patched = applyPatch(
      'application/strategic-merge-patch+json',
      secret,
      patch,
      { group: '', version: 'v1', kind: 'Secret' },
      true,
    );
    expect(patched).to.deep.equal({
      metadata: {
        name: 's',
        ownerReferences: [
          { uid: 'u2', kind: 'Job', name: 'b' },
          { uid: 'u1', kind: 'Deployment', name: 'a' },
        ],
      },
      data: { a: 'YQ==', c: 'Yw==' },
    });
  });

  it("is refused for custom resources with kube-apiserver's 415", () => {
    expectPatchError(
      () =>
        applyPatch(
          'application/strategic-merge-patch+json',
          { spec: {} },
          { spec: { a: 1 } },
          { group: 'example.com', version: 'v1', kind: 'Widget' },
          false,
        ),
      415,
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
    );
  });
});

describe('patch metadata table', () => {
  const field = (tree: PatchMetaTree, ...path: string[]) =>
    path.reduce<FieldPatchMeta | undefined>(
      (meta, name, i) => (i === 0 ? tree[name] : meta?.fields?.[name]),
      undefined,
    );

  it('reuses the pod spec under every workload template', () => {
    const containers = { strategy: 'merge', mergeKey: 'name' };
    expect(field(patchMetaFor('', 'Pod'), 'spec', 'containers')).to.include(containers);
    expect(field(patchMetaFor('apps', 'StatefulSet'), 'spec', 'template', 'spec', 'initContainers')).to.include(
      containers,
    );
    expect(
      field(
        patchMetaFor('batch', 'CronJob'),
        'spec',
        'jobTemplate',
        'spec',
        'template',
        'spec',
        'containers',
        'volumeMounts',
      ),
    ).to.deep.equal({ strategy: 'merge', mergeKey: 'mountPath' });
  });

  it('has the tags of k8s.io/api, and none where the types have none', () => {
    expect(field(patchMetaFor('', 'Pod'), 'spec', 'volumes')).to.deep.equal({
      strategy: 'merge,retainKeys',
      mergeKey: 'name',
    });
    expect(field(patchMetaFor('', 'Pod'), 'spec', 'containers', 'ports')).to.deep.equal({
      strategy: 'merge',
      mergeKey: 'containerPort',
    });
    expect(field(patchMetaFor('', 'Node'), 'status', 'addresses')).to.deep.equal({
      strategy: 'merge',
      mergeKey: 'type',
    });
    expect(field(patchMetaFor('', 'Service'), 'spec', 'ports')).to.deep.equal({ strategy: 'merge', mergeKey: 'port' });
    expect(field(patchMetaFor('', 'Pod'), 'spec', 'tolerations')).to.equal(undefined);
    expect(field(patchMetaFor('', 'Pod'), 'spec', 'containers', 'envFrom')).to.equal(undefined);
    expect(field(patchMetaFor('', 'Pod'), 'spec', 'containers', 'resizePolicy')).to.equal(undefined);
  });

  it("gives kinds without a table entry ObjectMeta's tags", () => {
    expect(field(patchMetaFor('', 'ConfigMap'), 'metadata', 'finalizers')).to.deep.equal({ strategy: 'merge' });
    expect(field(patchMetaFor('rbac.authorization.k8s.io', 'Role'), 'rules')).to.equal(undefined);
  });
});
