/** ClickHouse version strings, e.g. `26.7.2.1` or `18.16.1`. Pure helpers, safe in workflow code. */

/**
 * Compare two dotted versions numerically; missing components count as 0.
 * @returns negative if a < b, 0 if equal, positive if a > b.
 */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((x) => parseInt(x, 10) || 0);
  const pb = b.split('.').map((x) => parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** True if `actual` (a full server version) is at least `min`. */
export function versionAtLeast(actual: string, min: string): boolean {
  return compareVersions(actual, min) >= 0;
}

/** True if a full server version such as `26.7.2.1` matches a matrix label such as `26.7`. */
export function versionMatchesLabel(actual: string, label: string): boolean {
  const a = actual.split('.');
  return label.split('.').every((part, i) => a[i] === part);
}
