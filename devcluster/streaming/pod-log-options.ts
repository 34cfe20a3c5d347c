/**
 * A pods/log request's options (PodLogOptions), decoded from the query as kube-apiserver decodes
 * them (a value that does not parse is a 400) and then checked by its ValidatePodLogOptions (a 422
 * Invalid naming the PodLogOptions and the pod).
 */
import { queryBool } from '../../apiserver/query-bool.js';
import { invalid } from '../../apiserver/status.js';
import { forbidden, invalid as invalidValue, type Cause } from '../../apiserver/validation/cause.js';
import { int64Param, timeParam } from './query-params.js';

export interface PodLogOptions {
  container: string | null;
  follow: boolean;
  previous: boolean;
  timestamps: boolean;
  /** Milliseconds since the epoch. */
  sinceTime: number | null;
  sinceSeconds: number | null;
  tailLines: number | null;
  limitBytes: number | null;
}

/** Throws kube's 400 for a value that does not decode and its 422 for options that do not validate. */
export function podLogOptions(query: URLSearchParams, podName: string): PodLogOptions {
  const sinceSeconds = int64Param(query, 'sinceSeconds');
  const sinceTime = timeParam(query, 'sinceTime');
  const tailLines = int64Param(query, 'tailLines');
  const limitBytes = int64Param(query, 'limitBytes');
  const causes: Cause[] = [];
  if (tailLines !== null && tailLines < 0n)
    causes.push(invalidValue('tailLines', tailLines, 'must be greater than or equal to 0'));
  if (limitBytes !== null && limitBytes < 1n)
    causes.push(invalidValue('limitBytes', limitBytes, 'must be greater than 0'));
  if (sinceSeconds !== null && sinceTime !== null)
    causes.push(forbidden('', 'at most one of `sinceTime` or `sinceSeconds` may be specified'));
  else if (sinceSeconds !== null && sinceSeconds < 1n)
    causes.push(invalidValue('sinceSeconds', sinceSeconds, 'must be greater than 0'));
  if (causes.length > 0) throw invalid('PodLogOptions', '', podName, causes);
  const number = (value: bigint | null) => (value === null ? null : Number(value));
  return {
    container: query.get('container'),
    follow: queryBool(query, 'follow'),
    previous: queryBool(query, 'previous'),
    timestamps: queryBool(query, 'timestamps'),
    sinceTime,
    sinceSeconds: number(sinceSeconds),
    tailLines: number(tailLines),
    limitBytes: number(limitBytes),
  };
}
