/** Label maps and label selectors as apimachinery's labels package writes them. */

/** `labels.FormatLabels`: `a=1,b=2` sorted by key, `<none>` when empty. */
export function formatLabels(labels: Record<string, string> | undefined): string {
  const text = Object.keys(labels ?? {})
    .sort()
    .map((key) => `${key}=${labels![key]}`)
    .join(',');
  return text === '' ? '<none>' : text;
}

interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

function requirementText({ key, operator, values = [] }: LabelSelectorRequirement): string {
  const sorted = [...values].sort().join(',');
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) throw new Error(`${operator} needs values`);
      return `${key} ${operator === 'In' ? 'in' : 'notin'} (${sorted})`;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) throw new Error(`${operator} takes no values`);
      return operator === 'Exists' ? key : `!${key}`;
    default:
      throw new Error(`"${operator}" is not a valid label selector operator`);
  }
}

/**
 * `metav1.LabelSelectorAsSelector(s).String()`: requirements sorted by key and joined by commas;
 * empty for a missing or empty selector. Throws for a selector kube would reject.
 */
export function selectorText(selector: LabelSelector | undefined): string {
  const requirements = [
    ...Object.entries(selector?.matchLabels ?? {}).map(([key, value]) => ({ key, text: `${key}=${value}` })),
    ...(selector?.matchExpressions ?? []).map((r) => ({ key: r.key, text: requirementText(r) })),
  ];
  return requirements
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map((r) => r.text)
    .join(',');
}

/** `metav1.FormatLabelSelector`: like selectorText, but `<none>` when empty and `<error>` when invalid. */
export function formatLabelSelector(selector: LabelSelector | undefined): string {
  try {
    return selectorText(selector) || '<none>';
  } catch {
    return '<error>';
  }
}
