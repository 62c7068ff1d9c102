package io.acceltriage.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP proxy run by a test between a service and a server it depends on (PostgreSQL), so the
 * test can take the server away without stopping it: {@link #cut} closes every open connection and
 * refuses new ones (accepted and closed at once, as a host without the server answers);
 * {@link #blackhole} accepts new connections and never answers on them (a partition, a hung host);
 * {@link #restore} forwards again. Two threads per connection; for a handful of pooled connections, not
 * for load.
 */
public final class TcpProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final AtomicInteger accepted = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private final Set<Socket> silent = ConcurrentHashMap.newKeySet();
    private volatile boolean down;
    private volatile boolean blackhole;
    private volatile boolean closed;

    private TcpProxy(ServerSocket listener, InetSocketAddress target) {
        this.listener = listener;
        this.target = target;
        Thread acceptor = new Thread(this::acceptLoop, "tcp-proxy-" + listener.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Listens on a free loopback port and forwards to {@code host:port}. */
    public static TcpProxy to(String host, int port) {
        try {
            return new TcpProxy(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), new InetSocketAddress(host, port));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on loopback", e);
        }
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** The server goes away: open connections are cut mid-stream, new ones are closed as soon as they connect. */
    public synchronized void cut() {
        down = true;
        for (Socket s : open) {
            closeQuietly(s);
        }
        open.clear();
    }

    /** New connections are accepted and then nothing: no bytes, no close. Open ones are cut as by {@link #cut}. */
    public synchronized void blackhole() {
        blackhole = true;
        cut();
    }

    /** The server is back: new connections are forwarded again (cut ones stay cut, as after a real outage). */
    public synchronized void restore() {
        down = false;
        blackhole = false;
        for (Socket s : silent) {
            closeQuietly(s);
        }
        silent.clear();
    }

    /** Connections refused or swallowed while down: proof that the service really tried the server in the outage. */
    public int refused() {
        return refused.get();
    }

    /** Connections forwarded so far. */
    public int accepted() {
        return accepted.get();
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                if (closed) return;
                continue;
            }
            // Decided and registered under the lock cut/blackhole/restore take: a connection accepted while the
            // state changes must not outlive a cut, nor stay silent after a restore.
            synchronized (this) {
                if (blackhole) {
                    refused.incrementAndGet();
                    silent.add(client);
                    continue;
                }
                if (down) {
                    refused.incrementAndGet();
                    closeQuietly(client);
                    continue;
                }
            }
            Socket upstream = new Socket();
            try {
                upstream.connect(target, 2_000);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            synchronized (this) {
                if (down) { // cut while this one connected upstream
                    refused.incrementAndGet();
                    closeQuietly(client);
                    closeQuietly(upstream);
                    continue;
                }
                accepted.incrementAndGet();
                open.add(client);
                open.add(upstream);
            }
            pump(client, upstream);
            pump(upstream, client);
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // cut, or the other side closed: either way this connection is over
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                open.remove(from);
                open.remove(to);
            }
        }, "tcp-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            // RST rather than FIN: a cut cable, not a polite goodbye
            s.setSoLinger(true, 0);
        } catch (IOException e) {
            // already closed
        }
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        restore();
        cut();
        try {
            listener.close();
        } catch (IOException e) {
            // nothing to release
        }
    }
}
