/**
 * Events: the objects they are about are references like any other, and their prose names
 * upstream objects, so it loses the prefix on the way down.
 */
import { objectReference } from './object-reference.js';
import { textAt } from './text.js';
import { all, optional } from './convertor.js';

/** core/v1 Event. */
export const coreEventConvertor = all(
  optional('involvedObject', objectReference()),
  optional('related', objectReference()),
  textAt('message'),
);

/** events.k8s.io/v1 Event. */
export const eventsEventConvertor = all(
  optional('regarding', objectReference()),
  optional('related', objectReference()),
  textAt('note'),
);
