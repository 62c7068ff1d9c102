package io.acceltriage.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The kubeconfig a running sandbox writes into its data folder, so the command-line tools
 * ({@code investigate}, {@code capture}) and kubectl can reach its simulated API server from another
 * process. Its simulated exporters are served by the service, not at the pods' addresses, so the file
 * names them in a kubeconfig extension ({@value #EXPORTERS}) that readers other than acceltriage ignore.
 */
public final class SandboxKubeconfig {

    public static final String FILE_NAME = "sandbox-kubeconfig.yaml";
    /** The extension holding the URL of a node's simulated exporter, {@code {node}} standing for its name. */
    static final String EXPORTERS = "acceltriage.io/sandbox-exporters";

    private SandboxKubeconfig() {}

    public static Path in(String dataDir) {
        return Path.of(dataDir).resolve(FILE_NAME);
    }

    /** Writes it atomically (a reader never sees half a file), readable by its owner only. */
    static void write(Path file, String apiServer, String exporters) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        String text = """
                # Written by acceltriage's sandbox at start, for its simulated API server; removed when it stops.
                apiVersion: v1
                kind: Config
                clusters:
                - name: acceltriage-sandbox
                  cluster:
                    server: %s
                users:
                - name: acceltriage-sandbox
                  user: {}
                contexts:
                - name: acceltriage-sandbox
                  context: {cluster: acceltriage-sandbox, user: acceltriage-sandbox}
                current-context: acceltriage-sandbox
                extensions:
                - name: %s
                  extension: "%s"
                """.formatted(apiServer, EXPORTERS, exporters);
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    /** The exporter URL template of a sandbox's kubeconfig ({@code {node}} to replace); empty for any other kubeconfig. */
    public static Optional<String> exporters(String kubeconfigText) {
        try {
            JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(kubeconfigText);
            if (root == null) return Optional.empty();
            for (JsonNode e : root.path("extensions")) {
                if (EXPORTERS.equals(e.path("name").asText()) && e.path("extension").isTextual()) {
                    return Optional.of(e.path("extension").asText());
                }
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
