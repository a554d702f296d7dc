import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP proxy to a real server that a test can cut: Redis "going away" without touching it. */
export interface TcpProxy {
  port: number;
  /** Stops listening and drops every connection: the server looks gone. */
  cut(): Promise<void>;
  /** Listens again on the same port: the server is back. */
  restore(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const listen = async (port: number): Promise<Server> => {
    const server: Server = createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    return server;
  };
  let server = await listen(0);
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    cut: async () => {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    restore: async () => {
      server = await listen(port);
    },
  };
}
