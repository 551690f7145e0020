"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
//# sourceMappingURL=target.js.map