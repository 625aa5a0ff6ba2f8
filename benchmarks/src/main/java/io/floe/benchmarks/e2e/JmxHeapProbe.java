package io.floe.benchmarks.e2e;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/** Reads used heap over JMX from a JVM started with a local, unauthenticated JMX port (see {@link KafkaBroker}). */
final class JmxHeapProbe implements HeapSampler.Probe, AutoCloseable {

    private final JMXServiceURL url;
    private JMXConnector connector;
    private MemoryMXBean memory;

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
            memory = ManagementFactory.newPlatformMXBeanProxy(connector.getMBeanServerConnection(),
                    ManagementFactory.MEMORY_MXBEAN_NAME, MemoryMXBean.class);
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
