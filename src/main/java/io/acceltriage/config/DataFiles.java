package io.acceltriage.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Loads knowledge, policies and toolsets from YAML strictly: an unknown key is an error (a typo must
 * not pass silently), and every error names the file, the line and the reason.
 */
public final class DataFiles {

    public static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory())
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(com.fasterxml.jackson.databind.MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS)
            .findAndRegisterModules();

    private DataFiles() {}

    /** A bundled data file from the classpath. */
    public static <T> T resource(String path, Class<T> type) {
        try (InputStream in = DataFiles.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new InvalidDataFile(path + ": not found on the classpath");
            }
            return parse(path, in.readAllBytes(), type);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An operator's file on disk; falls back to the bundled copy of the same relative path. */
    public static <T> T fileOrResource(String path, Class<T> type) {
        Path file = Path.of(path);
        if (Files.isRegularFile(file)) {
            try {
                return parse(file.toString(), Files.readAllBytes(file), type);
            } catch (IOException e) {
                throw new InvalidDataFile(path + ": cannot read: " + e.getMessage());
            }
        }
        return resource(path, type);
    }

    public static <T> T parse(String name, byte[] content, Class<T> type) {
        try {
            T value = YAML.readValue(content, type);
            if (value == null) {
                throw new InvalidDataFile(name + ": the file is empty");
            }
            return value;
        } catch (UnrecognizedPropertyException e) {
            throw new InvalidDataFile(name + ":" + e.getLocation().getLineNr() + ": unknown key '" + e.getPropertyName()
                    + "'; known keys: " + e.getKnownPropertyIds());
        } catch (JsonProcessingException e) {
            throw new InvalidDataFile(name + ":" + e.getLocation().getLineNr() + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new InvalidDataFile(name + ": " + e.getMessage());
        }
    }

    /** A data file that cannot be used; the message says where and why. */
    public static final class InvalidDataFile extends RuntimeException {
        public InvalidDataFile(String message) {
            super(message);
        }
    }
}
