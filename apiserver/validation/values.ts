/**
 * The small value rules kube's validators share (apimachinery's util/validation and the core and
 * apps validation helpers): ports, non-negative numbers, int-or-percent values, label maps and
 * LabelSelector objects. Wording is kube's: kubectl prints each cause as it comes.
 */
import { isObject } from '../json.js';
import { forbidden, invalid, required, type Cause } from './cause.js';
import { isQualifiedName, isValidLabelValue, maxLenError, regexError } from './names.js';

const PORT_NAME_CHARSET = /^[-a-z0-9]+$/;
const PORT_NAME_LETTER = /[a-z]/;
const PERCENT_FMT = '[0-9]+%';
const PERCENT = new RegExp(`^${PERCENT_FMT}$`);

export function isValidPortNum(port: number): string[] {
  return Number.isInteger(port) && port >= 1 && port <= 65535 ? [] : ['must be between 1 and 65535, inclusive'];
}

/** An IANA service name: what a port may be called and referred to by. */
export function isValidPortName(port: string): string[] {
  const errs: string[] = [];
  if (port.length > 15) errs.push(maxLenError(15));
  if (!PORT_NAME_CHARSET.test(port))
    errs.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!PORT_NAME_LETTER.test(port)) errs.push('must contain at least one letter (a-z)');
  if (port.includes('--')) errs.push('must not contain consecutive hyphens');
  if (port.startsWith('-') || port.endsWith('-')) errs.push('must not begin or end with a hyphen');
  return errs;
}

/** An IntOrString port: a number is a port number, a string a port's name (so "8080" is refused). */
export function validatePortNumOrName(port: unknown, field: string): Cause[] {
  if (typeof port === 'number') return isValidPortNum(port).map((msg) => invalid(field, port, msg));
  if (typeof port === 'string') return isValidPortName(port).map((msg) => invalid(field, port, msg));
  return [];
}

export function validateNonnegative(value: unknown, field: string): Cause[] {
  return typeof value === 'number' && value < 0 ? [invalid(field, value, 'must be greater than or equal to 0')] : [];
}

export function isValidPercent(value: string): string[] {
  return PERCENT.test(value)
    ? []
    : [
        regexError(
          "a valid percent string must be a numeric string followed by an ending '%'",
          PERCENT_FMT,
          '1%',
          '93%',
        ),
      ];
}

/** apps' ValidatePositiveIntOrPercent: a non-negative number, or a percent string. */
export function validatePositiveIntOrPercent(value: unknown, field: string): Cause[] {
  if (typeof value === 'string') return isValidPercent(value).map((msg) => invalid(field, value, msg));
  return validateNonnegative(value, field);
}

export function isNotMoreThan100Percent(value: unknown, field: string): Cause[] {
  const percent = percentOf(value);
  return percent !== undefined && percent > 100 ? [invalid(field, value, 'must not be greater than 100%')] : [];
}

function percentOf(value: unknown): number | undefined {
  return typeof value === 'string' && PERCENT.test(value) ? Number(value.slice(0, -1)) : undefined;
}

/** The number an int-or-percent stands for as kube compares it with 0 (a percent's number, an int itself). */
export function intOrPercentValue(value: unknown): number {
  return percentOf(value) ?? (typeof value === 'number' ? value : 0);
}

/** metav1 ValidateLabels: every key a qualified name, every value a label value, both reported at the map. */
export function validateLabels(labels: unknown, field: string): Cause[] {
  if (!isObject(labels)) return [];
  const causes: Cause[] = [];
  for (const [key, value] of Object.entries(labels)) {
    for (const msg of isQualifiedName(key)) causes.push(invalid(field, key, msg));
    if (typeof value === 'string') for (const msg of isValidLabelValue(value)) causes.push(invalid(field, value, msg));
  }
  return causes;
}

/** metav1 ValidateLabelSelector, with label values in expressions checked (as workloads require). */
export function validateLabelSelector(selector: unknown, field: string): Cause[] {
  if (!isObject(selector)) return [];
  const causes = validateLabels(selector.matchLabels, `${field}.matchLabels`);
  const expressions: unknown[] = Array.isArray(selector.matchExpressions) ? selector.matchExpressions : [];
  expressions.forEach((expression, i) => {
    const path = `${field}.matchExpressions[${i}]`;
    const e = isObject(expression) ? expression : {};
    const values: unknown[] = Array.isArray(e.values) ? e.values : [];
    switch (e.operator) {
      case 'In':
      case 'NotIn':
        if (values.length === 0)
          causes.push(required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case 'Exists':
      case 'DoesNotExist':
        if (values.length > 0)
          causes.push(
            forbidden(`${path}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"),
          );
        break;
      default:
        causes.push(invalid(`${path}.operator`, e.operator ?? '', 'not a valid selector operator'));
    }
    const key = typeof e.key === 'string' ? e.key : '';
    for (const msg of isQualifiedName(key)) causes.push(invalid(`${path}.key`, key, msg));
    values.forEach((value, j) => {
      if (typeof value === 'string')
        for (const msg of isValidLabelValue(value)) causes.push(invalid(`${path}.values[${j}]`, value, msg));
    });
  });
  return causes;
}

/** Whether a LabelSelector object selects nothing in particular (`{}`): no labels, no expressions. */
export function isEmptySelector(selector: Record<string, any>): boolean {
  const labels = isObject(selector.matchLabels) ? Object.keys(selector.matchLabels).length : 0;
  const expressions = Array.isArray(selector.matchExpressions) ? selector.matchExpressions.length : 0;
  return labels + expressions === 0;
}

/** A resource.Quantity as kube parses it: a signed decimal, then a suffix (binary, decimal or an exponent). */
const QUANTITY = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/;

/**
 * The sign of a quantity (a number, or a string kube parses), as Quantity.Sign(); undefined for
 * one kube could not parse, which is its decoder's business (400), not validation's.
 */
export function quantitySign(quantity: unknown): number | undefined {
  if (typeof quantity === 'number') return Math.sign(quantity);
  if (typeof quantity !== 'string') return undefined;
  const match = QUANTITY.exec(quantity);
  return match === null ? undefined : Math.sign(Number(match[1]));
}
