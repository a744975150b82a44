// The metrics HTTP endpoint: GET /metrics answers with the worker's Prometheus text,
// bound to 127.0.0.1 unless told otherwise.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { errorText } from "./failure.js";

export interface ServeMetricsOptions {
  /** Default 0 (any free port). */
  port?: number;
  /** Default "127.0.0.1" (never all interfaces unless asked). */
  host?: string;
}

export interface MetricsServer {
  /** e.g. "http://127.0.0.1:39123/metrics". */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Serves `body()` at GET (and HEAD) /metrics; `onClose` runs when the handle is closed. */
export async function serveMetrics(body: () => string, options: ServeMetricsOptions, onClose: (server: MetricsServer) => void): Promise<MetricsServer> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 0;
  const server = createServer((request, response) => {
    const path = (request.url ?? "/").split("?")[0];
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain" }).end("method not allowed\n");
      return;
    }
    if (path !== "/metrics") {
      response.writeHead(404, { "content-type": "text/plain" }).end("not found: try /metrics\n");
      return;
    }
    let text: string;
    try {
      text = body();
    } catch (error) {
      response.writeHead(500, { "content-type": "text/plain" }).end(`${errorText(error)}\n`);
      return;
    }
    response.writeHead(200, { "content-type": "text/plain; version=0.0.4; charset=utf-8" });
    response.end(request.method === "HEAD" ? undefined : text);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  const handle: MetricsServer = {
    url: `http://${shownHost}:${bound}/metrics`,
    port: bound,
    close: () =>
      new Promise<void>((resolve, reject) => {
        onClose(handle);
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
  return handle;
}
