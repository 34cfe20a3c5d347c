/** Ingresses name their (cluster-scoped, prefixed) IngressClass. */
import { at, prefixed, stringAt } from './transform.js';

export const ingressConvertor = at(['spec'], stringAt('ingressClassName', prefixed));
