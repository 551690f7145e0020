"use strict";
var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    var desc = Object.getOwnPropertyDescriptor(m, k);
    if (!desc || ("get" in desc ? !m.__esModule : desc.writable || desc.configurable)) {
      desc = { enumerable: true, get: function() { return m[k]; } };
    }
    Object.defineProperty(o, k2, desc);
}) : (function(o, m, k, k2) {
    if (k2 === undefined) k2 = k;
    o[k2] = m[k];
}));
var __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {
    Object.defineProperty(o, "default", { enumerable: true, value: v });
}) : function(o, v) {
    o["default"] = v;
});
var __importStar = (this && this.__importStar) || (function () {
    var ownKeys = function(o) {
        ownKeys = Object.getOwnPropertyNames || function (o) {
            var ar = [];
            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;
            return ar;
        };
        return ownKeys(o);
    };
    return function (mod) {
        if (mod && mod.__esModule) return mod;
        var result = {};
        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== "default") __createBinding(result, mod, k[i]);
        __setModuleDefault(result, mod);
        return result;
    };
})();
Object.defineProperty(exports, "__esModule", { value: true });
exports.MANIFEST_FILES = exports.NOT_PER_CELL_FILES = exports.OWNER_ANNOTATION = exports.CELL_ANNOTATION = exports.RUN_ID_ANNOTATION = exports.MANIFEST_DEFAULTS = exports.CELL_LABEL = exports.RUN_LABEL = exports.MANAGED_BY_VALUE = exports.MANAGED_BY_LABEL = void 0;
exports.isValidLabelValue = isValidLabelValue;
exports.toLabelValue = toLabelValue;
exports.renderManifest = renderManifest;
exports.loadManifests = loadManifests;
/**
 * Kubernetes manifest templates for the `kubernetes` target (see `manifests/README.md`).
 *
 * Templates are plain YAML files with `{{name}}` placeholders inside string scalars. Rendering works
 * on the parsed YAML tree, not on the raw text, so a value can never inject YAML structure (a value
 * such as `a: b` or one containing a quote stays one string). Placeholders that end up in a
 * Kubernetes label value (`metadata.labels`, `nodeSelector`, `matchLabels`) are checked against the
 * label-value syntax before anything is rendered, because an invalid label makes the API server
 * reject the object and — worse — an object without its chbench labels cannot be found by `gc`.
 */
const node_crypto_1 = require("node:crypto");
const promises_1 = require("node:fs/promises");
const path = __importStar(require("node:path"));
const YAML = __importStar(require("yaml"));
/** Label every chbench-created Kubernetes object carries; value is always {@link MANAGED_BY_VALUE}. */
exports.MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
/** Value of {@link MANAGED_BY_LABEL}. */
exports.MANAGED_BY_VALUE = 'chbench';
/** Label holding the (label-safe) run id; see {@link toLabelValue}. The full run id is in {@link RUN_ID_ANNOTATION}. */
exports.RUN_LABEL = 'chbench.io/run';
/** Label holding the (label-safe) cell key, e.g. `v26.3-zstd3`. */
exports.CELL_LABEL = 'chbench.io/cell';
/**
 * Defaults for the optional placeholders, merged under the caller's values by {@link loadManifests}
 * (not by {@link renderManifest}, which is strict). They reproduce the seed article's environment:
 * a 100 GiB gp3 volume on one m5.xlarge node.
 */
exports.MANIFEST_DEFAULTS = Object.freeze({
    storageSize: '100Gi',
    instanceType: 'm5.xlarge',
    /** The seed's names, for a manual apply; the kubernetes target derives per-cell names (`names.ts`). */
    pod: 'clickhouse',
    pvc: 'clickhouse-data',
    credentialsSecret: 'chbench-clickhouse',
    owner: 'none (applied outside a chbench workflow)',
});
/** Annotation holding the full run id (the label {@link RUN_LABEL} may be shortened by {@link toLabelValue}). */
exports.RUN_ID_ANNOTATION = 'chbench.io/run-id';
/** Annotation holding the full cell key. */
exports.CELL_ANNOTATION = 'chbench.io/cell-key';
/** Annotation holding the owning workflow (`TemporalOwner` JSON), read by `chbench gc`. */
exports.OWNER_ANNOTATION = 'chbench.io/owner';
/** Templates in `manifests/` that are not per-cell objects (applied once by an admin): skipped by {@link loadManifests}. */
exports.NOT_PER_CELL_FILES = Object.freeze(['rbac.yaml']);
/**
 * Template files in apply order: the Namespace and StorageClass must exist before the PVC, and the
 * PVC before the Pod that mounts it. Other `*.yaml` / `*.yml` files in the directory follow these,
 * alphabetically.
 */
exports.MANIFEST_FILES = Object.freeze([
    'namespace.yaml',
    'storageclass.yaml',
    'pvc.yaml',
    'pod.yaml',
]);
const PLACEHOLDER_RE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
const LABEL_VALUE_RE = /^(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$/;
const LABEL_VALUE_MAX = 63;
/** Mapping keys whose children are label key/value pairs (object labels and label selectors). */
const LABEL_MAP_KEYS = new Set(['labels', 'nodeSelector', 'matchLabels']);
/**
 * Whether `s` is a syntactically valid Kubernetes label value: at most 63 characters of
 * `[A-Za-z0-9._-]`, beginning and ending with an alphanumeric character. The empty string is valid
 * for Kubernetes, but {@link renderManifest} refuses empty placeholder values anyway.
 */
function isValidLabelValue(s) {
    return typeof s === 'string' && s.length <= LABEL_VALUE_MAX && LABEL_VALUE_RE.test(s);
}
/**
 * Turns any string into a valid, non-empty Kubernetes label value, deterministically.
 *
 * - A string that already is a valid non-empty label value is returned unchanged, so cell keys such
 *   as `v26.3-zstd3` or run ids such as `run-20261012-0930` keep their readable form.
 * - Anything else has every run of characters outside `[A-Za-z0-9._-]` replaced by one `-`, leading
 *   and trailing non-alphanumerics removed, is cut to 54 characters and gets `-` plus the first 8 hex
 *   digits of the SHA-256 of the *original* string appended. The suffix keeps two different inputs
 *   that sanitise to the same text (`a/b` and `a:b`) apart, and makes the mapping stable across
 *   processes and machines, so `gc` can recompute the label from a run id.
 * - An input with no usable character at all (e.g. `""` or `"///"`) becomes the 8-digit hash alone.
 */
function toLabelValue(s) {
    const input = String(s);
    if (input.length > 0 && isValidLabelValue(input))
        return input;
    const hash = (0, node_crypto_1.createHash)('sha256').update(input, 'utf8').digest('hex').slice(0, 8);
    const maxBase = LABEL_VALUE_MAX - hash.length - 1;
    let base = input.replace(/[^A-Za-z0-9._-]+/g, '-');
    base = trimToAlnum(base);
    if (base.length > maxBase)
        base = trimToAlnum(base.slice(0, maxBase));
    return base.length > 0 ? `${base}-${hash}` : hash;
}
function trimToAlnum(s) {
    return s.replace(/^[^A-Za-z0-9]+/, '').replace(/[^A-Za-z0-9]+$/, '');
}
/** Placeholder names used in `text`, in order of first appearance (full-line `#` comments ignored). */
function placeholdersIn(text) {
    const names = [];
    for (const m of text.matchAll(PLACEHOLDER_RE))
        if (!names.includes(m[1]))
            names.push(m[1]);
    return names;
}
function withoutCommentLines(text) {
    return text
        .split(/\r?\n/)
        .filter((line) => !/^\s*#/.test(line))
        .join('\n');
}
function substitute(text, values) {
    return text.replace(PLACEHOLDER_RE, (_whole, name) => values[name]);
}
function hasOwn(values, name) {
    return Object.prototype.hasOwnProperty.call(values, name);
}
/** Finds every label/selector value in `doc` whose template text contains a placeholder. */
function labelUses(doc) {
    const uses = [];
    YAML.visit(doc, {
        Pair(_key, pair) {
            const k = YAML.isScalar(pair.key) ? pair.key.value : pair.key;
            if (typeof k !== 'string' || !LABEL_MAP_KEYS.has(k) || !YAML.isMap(pair.value))
                return undefined;
            for (const item of pair.value.items) {
                const labelKey = YAML.isScalar(item.key) ? String(item.key.value) : String(item.key);
                if (YAML.isScalar(item.value) && typeof item.value.value === 'string') {
                    const template = item.value.value;
                    if (placeholdersIn(template).length > 0)
                        uses.push({ key: labelKey, template });
                }
            }
            return undefined;
        },
    });
    return uses;
}
function parseDocuments(template, source) {
    const docs = YAML.parseAllDocuments(template);
    // parseAllDocuments returns an EmptyStream (not an array) for an empty input.
    const list = Array.isArray(docs) ? docs : [];
    for (const doc of list) {
        if (doc.errors.length > 0) {
            throw new Error(`${source}: YAML parse error: ${doc.errors.map((e) => e.message).join('; ')}`);
        }
    }
    return list;
}
/**
 * Renders one manifest template.
 *
 * Every `{{name}}` inside a YAML string scalar is replaced by `values[name]`. The template is parsed
 * first and substitution happens on the YAML tree, so values are always emitted as well-quoted
 * strings. Full-line `#` comments are copied verbatim (placeholders in them are not required).
 *
 * @param template YAML text, one or more documents.
 * @param values   placeholder values, e.g. `{ version: '26.3', runId: toLabelValue(runId), ... }`.
 * @param source   name used as the prefix of error messages (the file path, for {@link loadManifests}).
 * @returns the rendered YAML text.
 * @throws Error naming every placeholder that has no (or an empty) value; naming a placeholder that
 *   is used in a label value or node selector but whose value is not a valid Kubernetes label value
 *   (pass it through {@link toLabelValue}); naming a placeholder written outside a string scalar
 *   (e.g. an unquoted `key: {{x}}`, which YAML reads as a flow mapping); or on invalid YAML.
 */
function renderManifest(template, values, source = 'manifest template') {
    const wanted = placeholdersIn(withoutCommentLines(template));
    const missing = wanted.filter((n) => !hasOwn(values, n) || values[n] === undefined || values[n] === null);
    if (missing.length > 0) {
        throw new Error(`${source}: no value for placeholder${missing.length > 1 ? 's' : ''} ${missing.map((n) => `{{${n}}}`).join(', ')}`);
    }
    const bad = wanted.filter((n) => typeof values[n] !== 'string' || values[n] === '');
    if (bad.length > 0) {
        throw new Error(`${source}: empty or non-string value for placeholder${bad.length > 1 ? 's' : ''} ${bad.map((n) => `{{${n}}}`).join(', ')}`);
    }
    const docs = parseDocuments(template, source);
    // Every placeholder in the text must live inside a string scalar, or substitution would miss it.
    const inScalars = new Set();
    for (const doc of docs) {
        YAML.visit(doc, {
            Scalar(_key, node) {
                if (typeof node.value === 'string')
                    for (const n of placeholdersIn(node.value))
                        inScalars.add(n);
            },
        });
    }
    const stray = wanted.filter((n) => !inScalars.has(n));
    if (stray.length > 0) {
        throw new Error(`${source}: placeholder ${stray.map((n) => `{{${n}}}`).join(', ')} is not inside a YAML string; quote it, e.g. key: "{{${stray[0]}}}"`);
    }
    // Label values (and node selectors, which match node label values) must obey label syntax.
    const labelErrors = [];
    for (const doc of docs) {
        for (const use of labelUses(doc)) {
            const rendered = substitute(use.template, values);
            if (!isValidLabelValue(rendered)) {
                const names = placeholdersIn(use.template)
                    .map((n) => `{{${n}}}`)
                    .join(', ');
                labelErrors.push(`${names} gives ${JSON.stringify(rendered)} for label ${use.key}, which is not a valid Kubernetes label value ` +
                    `(at most 63 characters of [A-Za-z0-9._-], beginning and ending with a letter or digit; use toLabelValue())`);
            }
        }
    }
    if (labelErrors.length > 0)
        throw new Error(`${source}: ${labelErrors.join('; ')}`);
    for (const doc of docs) {
        YAML.visit(doc, {
            Scalar(_key, node) {
                if (typeof node.value === 'string' && placeholdersIn(node.value).length > 0) {
                    node.value = substitute(node.value, values);
                }
            },
        });
    }
    return docs.map((d) => d.toString({ lineWidth: 0 })).join('');
}
function assertKubeObject(obj, source) {
    const o = obj;
    if (o === null || typeof o !== 'object' || Array.isArray(o))
        throw new Error(`${source}: document is not a mapping`);
    if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string') {
        throw new Error(`${source}: object has no apiVersion/kind`);
    }
    if (!o.metadata || typeof o.metadata.name !== 'string' || o.metadata.name === '') {
        throw new Error(`${source}: ${o.kind} has no metadata.name`);
    }
    const labels = o.metadata.labels ?? {};
    const id = `${o.kind}/${o.metadata.name}`;
    if (labels[exports.MANAGED_BY_LABEL] !== exports.MANAGED_BY_VALUE) {
        throw new Error(`${source}: ${id} lacks label ${exports.MANAGED_BY_LABEL}: ${exports.MANAGED_BY_VALUE} (gc could not find it)`);
    }
    for (const key of [exports.RUN_LABEL, exports.CELL_LABEL]) {
        if (typeof labels[key] !== 'string' || labels[key] === '') {
            throw new Error(`${source}: ${id} lacks label ${key} (gc could not find it)`);
        }
    }
}
/**
 * Reads every template in `dir` (the files of {@link MANIFEST_FILES} first, in apply order, then any
 * other `*.yaml`/`*.yml` alphabetically, except {@link NOT_PER_CELL_FILES}), renders each with
 * {@link MANIFEST_DEFAULTS} overlaid by `values` (`runIdFull`/`cellKeyFull` default to `runId`/`cellKey`),
 * and returns the parsed objects in apply order (reverse it to delete).
 *
 * Each object is checked to have `apiVersion`, `kind`, `metadata.name` and the three chbench labels
 * (`app.kubernetes.io/managed-by: chbench`, `chbench.io/run`, `chbench.io/cell`).
 *
 * @param dir    directory holding the templates, normally `<repo>/manifests`.
 * @param values placeholder values; at least `version`, `runId` and `cellKey`.
 * @throws Error as {@link renderManifest} does (messages prefixed with the file name), or when an
 *   object misses a required field or label, or when the directory holds no template.
 */
async function loadManifests(dir, values) {
    const merged = {
        ...exports.MANIFEST_DEFAULTS,
        ...(values.runId ? { runIdFull: values.runId } : {}),
        ...(values.cellKey ? { cellKeyFull: values.cellKey } : {}),
        ...values,
    };
    const present = (await (0, promises_1.readdir)(dir)).filter((f) => /\.ya?ml$/i.test(f) && !exports.NOT_PER_CELL_FILES.includes(f));
    const ordered = [
        ...exports.MANIFEST_FILES.filter((f) => present.includes(f)),
        ...present.filter((f) => !exports.MANIFEST_FILES.includes(f)).sort(),
    ];
    if (ordered.length === 0)
        throw new Error(`${dir}: no *.yaml manifest templates found`);
    const objects = [];
    for (const file of ordered) {
        const full = path.join(dir, file);
        const text = await (0, promises_1.readFile)(full, 'utf8');
        const rendered = renderManifest(text, merged, full);
        for (const doc of parseDocuments(rendered, full)) {
            const obj = doc.toJS();
            if (obj === null || obj === undefined)
                continue; // empty document (e.g. a trailing `---`)
            assertKubeObject(obj, full);
            objects.push(obj);
        }
    }
    return objects;
}
//# sourceMappingURL=manifests.js.map