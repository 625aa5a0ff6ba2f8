package io.floe.engines;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A Delta reader other than Spark, as the lifecycle test asks it: Delta Kernel, in a class loader of
 * its own. Public, and in JDK types only, because it is the one type that both class loaders share.
 */
public interface DeltaReader {

    /**
     * The rows of the latest version of the Delta table at {@code location}: each a map from column name
     * to value (integers, doubles, strings, booleans, binary as UTF-8 text, timestamps as instants).
     */
    List<Map<String, Object>> rows(String location);

    /** The Iceberg sequence number the latest Delta version mirrors (Floe's {@code floe.iceberg} transaction). */
    Optional<Long> mirroredSequence(String location);

    /** The Delta column id of each top-level column of the latest version, by name. */
    Map<String, Long> columnIds(String location);

    /**
     * Delta Kernel at the versions floe-parent pins, with the Parquet release it was built with, from the
     * directory the build copies them to (system property {@code delta.kernel.path}). Kernel 4.4 needs
     * Parquet 1.16 and Spark 4.0 runs on 1.15: only a class loader of its own lets both read in one JVM.
     */
    static DeltaReader kernel() {
        Path jars = Path.of(System.getProperty("delta.kernel.path", "target/delta-kernel"));
        List<URL> urls = new ArrayList<>();
        try (Stream<Path> files = Files.list(jars)) {
            for (Path jar : files.filter(file -> file.toString().endsWith(".jar")).sorted().toList()) {
                urls.add(jar.toUri().toURL());
            }
            // KernelReads itself, so that its references to Kernel resolve in that class loader.
            urls.add(DeltaReader.class.getProtectionDomain().getCodeSource().getLocation());
            ClassLoader loader = new KernelClassLoader(urls.toArray(URL[]::new), DeltaReader.class.getClassLoader());
            var constructor = loader.loadClass(KernelClassLoader.READER).getDeclaredConstructor();
            constructor.setAccessible(true);
            return (DeltaReader) constructor.newInstance();
        } catch (IOException e) {
            throw new UncheckedIOException("no Delta Kernel jars in " + jars + " (the build's pre-integration-test"
                    + " phase copies them)", e);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot load Delta Kernel from " + jars, e);
        }
    }
}
