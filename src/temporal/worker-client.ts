/**
 * The worker's one Temporal client for activities: activities that ask Temporal something (a child
 * workflow's close status, the task queue's pollers, the namespace's id) share one connection that
 * the worker builds, instead of each opening and closing its own per call.
 *
 * The connection is opened on first use and kept; a failed connect is forgotten so the next call
 * tries again (the activity's retry policy decides how often). gRPC reconnects an open connection by
 * itself after a server restart.
 */
import { Client, Connection } from '@temporalio/client';

/** Where activities reach Temporal, and the shared client. */
export interface TemporalAccess {
  /** The Temporal frontend, `host:port` (`TEMPORAL_ADDRESS`). Recorded in target labels (gc asks it). */
  readonly address: string;
  /** The namespace the worker polls (`TEMPORAL_NAMESPACE`). */
  readonly namespace: string;
  /**
   * The shared client, connected on first call.
   * @throws the connection error when Temporal cannot be reached (the next call tries again)
   */
  client(): Promise<Client>;
  /** Close the connection if one was opened. Idempotent. */
  close(): Promise<void>;
}

/**
 * A lazily connected {@link TemporalAccess} for `address` and `namespace`.
 * @param connectTimeoutMs bound of one connect attempt, ms
 */
export function temporalAccess(address: string, namespace: string, connectTimeoutMs = 10_000): TemporalAccess {
  let connecting: Promise<{ connection: Connection; client: Client }> | undefined;
  const open = () => {
    connecting ??= Connection.connect({ address, connectTimeout: connectTimeoutMs }).then(
      (connection) => ({ connection, client: new Client({ connection, namespace }) }),
      (e: unknown) => {
        connecting = undefined;
        throw e;
      },
    );
    return connecting;
  };
  return {
    address,
    namespace,
    client: async () => (await open()).client,
    async close() {
      const c = connecting;
      connecting = undefined;
      if (c) await c.then(({ connection }) => connection.close()).catch(() => undefined);
    },
  };
}
