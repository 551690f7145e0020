/**
 * The `binary-map` version source: the `local` target's `binaries` (label → path of a ClickHouse
 * server binary). A label is served only when it is a key of the map; the version the binary runs
 * is read back when it starts.
 */
import type { VersionResolution, VersionSource } from './source';

/** The source of one `binaries` map. */
export function binaryMapSource(binaries: Readonly<Record<string, string>>): VersionSource {
  return {
    name: 'binary-map',
    labels: () => Object.keys(binaries),
    canServe: (label) => Object.prototype.hasOwnProperty.call(binaries, label),
    resolve(label): VersionResolution {
      if (!this.canServe(label)) throw new Error(`version "${label}" is not served by ${this.offer()}`);
      return {
        label,
        source: 'binary-map',
        artifact: binaries[label],
        description: `binary ${binaries[label]} (its version is read back when it starts)`,
      };
    },
    offer: () => `target.binaries serves ${Object.keys(binaries).join(', ') || 'nothing (empty map)'}`,
  };
}
