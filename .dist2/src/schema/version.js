"use strict";
/** ClickHouse version strings, e.g. `26.7.2.1` or `18.16.1`. Pure helpers, safe in workflow code. */
Object.defineProperty(exports, "__esModule", { value: true });
exports.versionMatchesLabel = versionMatchesLabel;
/** True if a full server version such as `26.7.2.1` matches a matrix label such as `26.7`. */
function versionMatchesLabel(actual, label) {
    const a = actual.split('.');
    return label.split('.').every((part, i) => a[i] === part);
}
//# sourceMappingURL=version.js.map