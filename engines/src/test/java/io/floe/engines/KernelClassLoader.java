package io.floe.engines;

import java.net.URL;
import java.net.URLClassLoader;
import java.util.List;

/**
 * Loads Delta Kernel, its Parquet release and {@link KernelReads} from its own jars before asking its
 * parent (the test's class path, Spark's); everything else (Hadoop, Jackson, the JDK, the types both
 * sides share) comes from the parent first.
 */
final class KernelClassLoader extends URLClassLoader {

    static final String READER = "io.floe.engines.KernelReads";

    private static final List<String> OWN = List.of("io.delta.kernel.", "org.apache.parquet.", "shaded.parquet.",
            READER);

    static {
        registerAsParallelCapable();
    }

    KernelClassLoader(URL[] urls, ClassLoader parent) {
        super("delta-kernel", urls, parent);
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            if (loaded == null && OWN.stream().anyMatch(name::startsWith)) {
                loaded = findClass(name);
            }
            if (loaded == null) {
                try {
                    loaded = getParent().loadClass(name);
                } catch (ClassNotFoundException e) {
                    loaded = findClass(name); // what Kernel needs and Spark's class path lacks
                }
            }
            if (resolve) {
                resolveClass(loaded);
            }
            return loaded;
        }
    }
}
