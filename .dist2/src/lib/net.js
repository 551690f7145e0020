"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.freePort = freePort;
exports.freePorts = freePorts;
/**
 * Loopback networking helpers shared by the dev server, the process targets, tests and benches.
 */
const node_net_1 = __importDefault(require("node:net"));
/**
 * Ask the kernel for a free TCP port on 127.0.0.1 (listen on port 0, read it, close).
 * The port is free when returned; another process could still take it before the caller binds it,
 * so a caller that cannot bind port 0 itself should retry on "address in use".
 * @returns a port number in 1..65535
 * @throws Error when the listen fails or the kernel assigns no port
 */
function freePort() {
    return new Promise((resolve, reject) => {
        const srv = node_net_1.default.createServer();
        srv.unref();
        srv.once('error', reject);
        srv.listen(0, '127.0.0.1', () => {
            const addr = srv.address();
            const port = typeof addr === 'object' && addr ? addr.port : 0;
            srv.close(() => (port > 0 ? resolve(port) : reject(new Error('freePort: no port assigned'))));
        });
    });
}
/**
 * Several distinct free loopback ports (see {@link freePort}).
 * @param n how many (≥ 1)
 * @returns `n` distinct port numbers
 */
async function freePorts(n) {
    const out = [];
    while (out.length < n) {
        const p = await freePort();
        if (!out.includes(p))
            out.push(p);
    }
    return out;
}
//# sourceMappingURL=net.js.map