/** Endpoints and EndpointSlices name the Pods behind a Service in `targetRef`s. */
import { objectReference } from './object-reference.js';
import { all, each, optional } from './convertor.js';

const targetRef = optional('targetRef', objectReference());

export const endpointsConvertor = each(
  ['subsets'],
  all(each(['addresses'], targetRef), each(['notReadyAddresses'], targetRef)),
);

/** discovery.k8s.io EndpointSlice. */
export const endpointSliceConvertor = each(['endpoints'], targetRef);
