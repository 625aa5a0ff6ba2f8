package io.floe.benchmarks.e2e;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.List;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Reads used heap over JMX from a JVM started with {@link #jvmOptions}: a local, unauthenticated JMX port. Both
 * systems are sampled this way, so the sampling costs them alike (a Floe {@code /metrics} scrape costs its agent
 * ~10-20 ms of CPU, twice a second).
 */
final class JmxHeapProbe implements HeapSampler.Probe, AutoCloseable {

    private final JMXServiceURL url;
    private JMXConnector connector;
    private MemoryMXBean memory;

    /** The options that open the JMX port this probe reads, on 127.0.0.1 only. */
    static List<String> jvmOptions(int port) {
        return List.of(
                "-Dcom.sun.management.jmxremote.port=" + port,
                "-Dcom.sun.management.jmxremote.rmi.port=" + port,
                "-Dcom.sun.management.jmxremote.host=127.0.0.1",
                "-Djava.rmi.server.hostname=127.0.0.1",
                "-Dcom.sun.management.jmxremote.authenticate=false",
                "-Dcom.sun.management.jmxremote.ssl=false");
    }

    JmxHeapProbe(int port) throws IOException {
        this.url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
    }

    /**
     * Connects lazily because the JVM may still be starting. Synchronized: the sampler's thread and the workload's
     * live-heap readings share the connection.
     */
    @Override
    public synchronized long heapUsedBytes() throws IOException {
        if (memory == null) {
            connector = JMXConnectorFactory.connect(url);
            memory = ManagementFactory.newPlatformMXBeanProxy(
                    connector.getMBeanServerConnection(), ManagementFactory.MEMORY_MXBEAN_NAME, MemoryMXBean.class);
        }
        return memory.getHeapMemoryUsage().getUsed();
    }

    @Override
    public void close() {
        if (connector != null) {
            try {
                connector.close();
            } catch (IOException ignored) {
                // The broker is going away; nothing to release on this side.
            }
        }
    }
}
