/** ClickHouse version strings, e.g. `26.7.2.1` or `18.16.1`. Pure helpers, safe in workflow code. */

/** True if a full server version such as `26.7.2.1` matches a matrix label such as `26.7`. */
export function versionMatchesLabel(actual: string, label: string): boolean {
  const a = actual.split('.');
  return label.split('.').every((part, i) => a[i] === part);
}

/** -1, 0 or 1 comparing dotted numeric versions (`24.8.4.1` < `26.9.2.1` < `26.10`; missing parts count as 0). */
export function compareVersions(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d) return Math.sign(d);
  }
  return 0;
}
