package io.floe.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** {@code floe --version}: Floe's version, from a resource Maven fills in, and the JVM's. */
public final class FloeVersion implements IVersionProvider {

    private static final String RESOURCE = "version.properties";

    @Override
    public String[] getVersion() {
        return new String[] {
            "floe " + version(), "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ")"
        };
    }

    /** Floe's version, or "unknown" when the resource is missing (classes run without Maven's build). */
    public static String version() {
        try (InputStream in = FloeVersion.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE + ": " + e.getMessage(), e);
        }
    }
}
