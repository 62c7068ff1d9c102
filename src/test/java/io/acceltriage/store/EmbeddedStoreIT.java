package io.acceltriage.store;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.acceltriage.testing.ServerProcess;
import io.acceltriage.testing.ServiceProcess;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded H2 store serves one process: its AUTO_SERVER port (there for `audit verify` beside the
 * service) listens on loopback only, and a second service started on the same data folder is refused
 * at start with what to do instead, rather than filing and triaging every alert a second time.
 */
class EmbeddedStoreIT {

    @TempDir(cleanup = CleanupMode.ON_SUCCESS) // a failure keeps service.log
    Path dir;

    @Test
    void aSecondServiceOnTheSameEmbeddedFileIsRefusedAndTheStoresPortListensOnLoopbackOnly() throws Exception {
        try (ServiceProcess first = ServiceProcess.start(dir, Map.of())) {
            first.awaitReady(Duration.ofSeconds(180));

            // H2 writes where its TCP server listens into the lock file: host:port. The proof is that another
            // interface of this host does not answer on that port.
            Properties lock = new Properties();
            try (InputStream in = Files.newInputStream(dir.resolve("acceltriage.lock.db"))) {
                lock.load(in);
            }
            String server = lock.getProperty("server");
            // H2 names a loopback bind "localhost"; bound to every interface it would name the host's address.
            assertTrue(server != null && (server.startsWith("localhost:") || server.startsWith("127.0.0.1:")), "the store's server address: " + server);
            int port = Integer.parseInt(server.substring(server.lastIndexOf(':') + 1));
            Optional<InetAddress> outward = outwardAddress();
            if (outward.isPresent()) {
                assertFalse(accepts(outward.get(), port), "the store's port answers on " + outward.get().getHostAddress());
            }

            Path second = dir.resolve("second-log");
            Files.createDirectories(second);
            // Same data folder (the environment wins over the ServiceProcess default), its own log folder is irrelevant.
            try (ServiceProcess again = ServiceProcess.start(second, Map.of("ACCELTRIAGE_DATA_DIR", dir.toString()))) {
                Instant deadline = Instant.now().plus(Duration.ofSeconds(180));
                while (ProcessHandle.of(again.pid()).map(ProcessHandle::isAlive).orElse(false) && Instant.now().isBefore(deadline)) {
                    ServerProcess.sleep(200);
                }
                assertFalse(ProcessHandle.of(again.pid()).map(ProcessHandle::isAlive).orElse(false), "the second service kept running");
                String log = Files.readString(second.resolve("service.log"));
                assertTrue(log.contains("another acceltriage service runs on the embedded store") && log.contains("ACCELTRIAGE_DB_URL"), log);
            }
            // The first is untouched by the refusal.
            first.awaitReady(Duration.ofSeconds(30));
        }
    }

    private static Optional<InetAddress> outwardAddress() throws IOException {
        for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nif.isUp() || nif.isLoopback()) continue;
            for (InetAddress a : Collections.list(nif.getInetAddresses())) {
                if (a instanceof java.net.Inet4Address && !a.isLoopbackAddress()) return Optional.of(a);
            }
        }
        return Optional.empty();
    }

    private static boolean accepts(InetAddress address, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(address, port), 2000);
            return true;
        } catch (IOException refused) {
            return false;
        }
    }
}
