/**
 * A version source: where the ClickHouse of a matrix version label comes from, apart from where the
 * server runs (the target's placement) and which kind of server it is. One file per source:
 *
 * | file            | source       | serves                                                                 |
 * | --------------- | ------------ | ---------------------------------------------------------------------- |
 * | `npm-chdb.ts`   | `npm-chdb`   | the engine bundled with chbench (npm `chdb`, ClickHouse 26.7.2.1)       |
 * | `pypi-chdb.ts`  | `pypi-chdb`  | the PyPI chdb builds of `src/engine/install.ts`, installed on demand   |
 * | `binary-map.ts` | `binary-map` | the `local` target's `binaries` (label → server binary)                |
 * | `image-tag.ts`  | `image-tag`  | the `kubernetes` target's `images` (label → image; default tag)        |
 * | `server-url.ts` | `server-url` | an `external` server: whatever the URL serves, read back at provision  |
 *
 * A source only describes and resolves; nothing is downloaded or started here. Whatever a source
 * promises, provisioning reads the version back from the running server and refuses a mismatch
 * (`VersionMismatch`, non-retryable).
 */

/** Names of the version sources. */
export type VersionSourceName = 'npm-chdb' | 'pypi-chdb' | 'binary-map' | 'image-tag' | 'server-url';

/** What a label resolves to in one source. JSON-serialisable (printed by `chbench validate --versions --json`). */
export interface VersionResolution {
  /** The matrix label, as written (`24.8`, `26.7.2.1`). */
  label: string;
  source: VersionSourceName;
  /**
   * Full ClickHouse version the source promises (`version()`, e.g. `24.8.4.1`), when it is known before
   * the server starts (the chdb builds); absent for binaries, images and URLs (read back at provision).
   */
  clickhouse?: string;
  /** What serves the label: `npm chdb@3.4.0`, `pypi chdb==3.1.2`, a binary path, an image, a URL. */
  artifact: string;
  /**
   * PyPI builds only: the installed engine (its directory and interpreter), or `null` when it is not
   * installed yet (provision installs it on demand).
   */
  installed?: { dir: string; python: string; clickhouse: string } | null;
  /** What the build cannot do (PyPI builds; human text, see docs/limits.md). */
  limits?: string[];
  /** One human line: `pypi chdb==3.1.2 → ClickHouse 24.8.4.1, installed at /…/chdb-3.1.2`. */
  description: string;
}

/** One source of versions. */
export interface VersionSource {
  readonly name: VersionSourceName;
  /** Labels this source can serve, shortest useful form first (`26.7`; a source serving any label lists its examples). */
  labels(): string[];
  /** Whether `label` resolves in this source. Never throws. */
  canServe(label: string): boolean;
  /**
   * What `label` resolves to.
   * @throws Error when this source cannot serve `label` (message lists {@link VersionSource.labels})
   */
  resolve(label: string): VersionResolution;
  /** One line for a refusal: `pypi-chdb serves 23.10 (23.10.1.1), 24.8 (24.8.4.1), …`. */
  offer(): string;
}

/**
 * Whether a full version such as `24.8.4.1` is named by a label of at least major.minor (`24.8`,
 * `24.8.4`, `24.8.4.1`). A bare major (`26`) names no chdb build: several releases share it.
 */
export function labelNames(full: string, label: string): boolean {
  const l = label.split('.');
  const f = full.split('.');
  return l.length >= 2 && l.length <= f.length && l.every((p, i) => f[i] === p);
}
