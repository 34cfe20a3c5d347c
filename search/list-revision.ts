/**
 * The revision a list answer reports (its `metadata.resourceVersion`), read from the text's start
 * where kube-apiserver writes it: `{"kind":…,"apiVersion":…,"metadata":{["selfLink":…,]"resourceVersion":"N"`
 * (Go encodes ListMeta's fields in that order). A revision probe's answer holds an item too, a
 * whole object parsed for nothing; any other shape is parsed whole. '' when there is none.
 */
import { isObject } from '../apiserver/json.js';

const LIST_REVISION =
  /^\{"kind":"[^"\\]*","apiVersion":"[^"\\]*","metadata":\{(?:"selfLink":"[^"\\]*",)?"resourceVersion":"([^"\\]+)"/;

export function listRevision(text: string): string {
  const prefix = LIST_REVISION.exec(text);
  if (prefix) return prefix[1];
  let list: unknown;
  try {
    list = JSON.parse(text);
  } catch {
    return '';
  }
  const revision = isObject(list) && isObject(list.metadata) ? list.metadata.resourceVersion : undefined;
  return typeof revision === 'string' ? revision : '';
}
