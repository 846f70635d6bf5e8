import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback in front of a real server (Redis, PostgreSQL), that a test turns into
 * the two ways a server goes away in production: one that stops answering while its connections
 * stay open (`pause`: a hung host, a saturated network), and one that is gone (`cut`: every
 * connection ends and new ones are dropped at once). `restore` brings it back.
 */
export interface TcpProxy {
  port: number;
  /** Holds every byte in both directions; connections stay open and nothing answers. */
  pause(): void;
  /**
   * Ends every connection; new ones are accepted and dropped at once ('drop', a server going
   * down), or refused because nothing listens on the port any more ('refuse', a server that is
   * down).
   */
  cut(how?: 'drop' | 'refuse'): Promise<void>;
  /** Forwards again: held bytes flow on and new connections reach the server. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
  toUpstream: Buffer[];
  toClient: Buffer[];
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let state: 'open' | 'paused' | 'cut' = 'open';
  const pairs = new Set<Pair>();

  function end(pair: Pair): void {
    pairs.delete(pair);
    pair.client.destroy();
    pair.upstream.destroy();
  }

  const server: Server = createServer((client) => {
    if (state === 'cut') {
      client.destroy();
      return;
    }
    const pair: Pair = {
      client,
      upstream: connect(target.port, target.host),
      toUpstream: [],
      toClient: [],
    };
    pairs.add(pair);
    client.on('data', (chunk: Buffer) => {
      if (state === 'open') pair.upstream.write(chunk);
      else if (state === 'paused') pair.toUpstream.push(chunk);
    });
    pair.upstream.on('data', (chunk: Buffer) => {
      if (state === 'open') client.write(chunk);
      else if (state === 'paused') pair.toClient.push(chunk);
    });
    for (const socket of [client, pair.upstream]) {
      socket.on('error', () => end(pair));
      socket.on('close', () => end(pair));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };

  return {
    port,
    pause() {
      state = 'paused';
    },
    async cut(how = 'drop') {
      state = 'cut';
      for (const pair of pairs) end(pair);
      if (how === 'refuse') await new Promise((resolve) => server.close(resolve));
    },
    async restore() {
      state = 'open';
      if (!server.listening) {
        await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
      }
      for (const pair of pairs) {
        for (const chunk of pair.toUpstream.splice(0)) pair.upstream.write(chunk);
        for (const chunk of pair.toClient.splice(0)) pair.client.write(chunk);
      }
    },
    async close() {
      for (const pair of pairs) end(pair);
      if (server.listening) await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A server that accepts connections and never says a word: the outage that hangs a client. */
export async function startSilentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A port on loopback where nothing listens (it was free a moment ago). */
export async function unusedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
