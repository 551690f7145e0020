/** ClickHouse version strings, e.g. `26.7.2.1` or `18.16.1`. Pure helpers, safe in workflow code. */

/** True if a full server version such as `26.7.2.1` matches a matrix label such as `26.7`. */
export function versionMatchesLabel(actual: string, label: string): boolean {
  const a = actual.split('.');
  return label.split('.').every((part, i) => a[i] === part);
}
