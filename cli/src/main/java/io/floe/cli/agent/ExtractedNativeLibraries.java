package io.floe.cli.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Native libraries that jars extract into {@code java.io.tmpdir} and mark {@code deleteOnExit}, which
 * a halting JVM never runs. On Linux the process's memory map names the files it loaded; deleting a
 * mapped library is safe there (the mapping keeps the inode until the process ends). Elsewhere this
 * does nothing.
 */
final class ExtractedNativeLibraries {

    private static final Logger LOGGER = LoggerFactory.getLogger(ExtractedNativeLibraries.class);
    private static final Path MAPS = Path.of("/proc/self/maps");

    private ExtractedNativeLibraries() {}

    /** Deletes the loaded libraries under {@code java.io.tmpdir} whose file name contains {@code name}, and their lock files. */
    static void deleteLoaded(String name) {
        Path tmp =
                Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().normalize();
        for (Path library : loaded(name, tmp)) {
            try {
                Files.deleteIfExists(library);
                Files.deleteIfExists(library.resolveSibling(library.getFileName() + ".lck"));
            } catch (IOException e) {
                LOGGER.debug("cannot delete extracted library {}: {}", library, e.toString());
            }
        }
    }

    static Set<Path> loaded(String name, Path directory) {
        Set<Path> found = new LinkedHashSet<>();
        if (!Files.isReadable(MAPS)) {
            return found;
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(MAPS);
        } catch (IOException e) {
            return found;
        }
        for (String line : lines) {
            int slash = line.indexOf('/');
            if (slash < 0) {
                continue;
            }
            Path path = Path.of(line.substring(slash).replace(" (deleted)", "").trim());
            if (path.getFileName().toString().contains(name) && directory.equals(path.getParent())) {
                found.add(path);
            }
        }
        return found;
    }
}
