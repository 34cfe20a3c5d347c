/** A benchmark's table on stdout: the first column left-aligned, the numbers right-aligned. */
export function printTable(header: string[], rows: string[][]): void {
  process.stdout.write(formatTable(header, rows));
}

/** printTable's text. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return `${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n${rows.map(line).join('\n')}\n`;
}
