package io.floe.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class FullGcTest {

    @Test
    void readsTheBytesOfTheHistogramsTotalLine() {
        List<String> output = """
                18586:
                 num     #instances         #bytes  class name (module)
                -------------------------------------------------------
                   1:           616      209737520  [B (java.base@17.0.15)
                   2:          5390         525064  java.lang.Class (java.base@17.0.15)
                 191:             1             16  sun.net.www.protocol.jar.Handler (java.base@17.0.15)
                Total         23505      210780624
                """.lines().toList();
        assertThat(FullGc.histogramTotalBytes(output)).hasValue(210_780_624L);
    }

    @Test
    void isEmptyWhenJcmdCouldNotAttach() {
        List<String> output = """
                20449:
                java.io.IOException: No such process
                	at jdk.attach/sun.tools.attach.VirtualMachineImpl.sendQuitTo(Native Method)
                """.lines().toList();
        assertThat(FullGc.histogramTotalBytes(output)).isEmpty();
    }

    @Test
    void aClassNamedTotalIsNotTheTotalLine() {
        assertThat(FullGc.histogramTotalBytes(List.of("   7:    12    288  Total (unnamed module @0x1)")))
                .isEmpty();
    }
}
