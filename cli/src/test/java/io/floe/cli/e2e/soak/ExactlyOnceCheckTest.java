package io.floe.cli.e2e.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Hand-made outputs, each breaking exactly once in one way, so the check is shown able to fail. */
class ExactlyOnceCheckTest {

    private static final Map<String, List<Long>> INPUTS = Map.of("a", List.of(1L, 2L, 3L), "b", List.of(1L, 2L));

    private static ExactlyOnceCheck.Result check(List<String> a, List<String> b) {
        return ExactlyOnceCheck.check(INPUTS, Map.of("a", a, "b", b));
    }

    @Test
    void everyInputCountedOnceInOrderPasses() {
        ExactlyOnceCheck.Result result = check(List.of("1:1", "2:2", "3:3"), List.of("1:1", "2:2"));

        assertThat(result.exactlyOnce()).as(result.counts()).isTrue();
        assertThat(result.inputs()).isEqualTo(5);
        assertThat(result.outputs()).isEqualTo(5);
    }

    @Test
    void aCountRepeatedIsARecordProcessedTwice() {
        ExactlyOnceCheck.Result result = check(List.of("1:1", "2:2", "2:2", "3:3"), List.of("1:1", "2:2"));

        assertThat(result.exactlyOnce()).isFalse();
        assertThat(result.repeated()).isEqualTo(1);
        assertThat(result.keysWrong()).containsExactly("a");
        assertThat(result.examples().get("repeated")).containsExactly("a: count 2 after 2 (update 2)");
    }

    @Test
    void aCountSkippedIsAnUpdateLost() {
        ExactlyOnceCheck.Result result = check(List.of("1:1", "3:3"), List.of("1:1", "2:2"));

        assertThat(result.skipped()).isEqualTo(1);
        assertThat(result.exactlyOnce()).isFalse();
    }

    @Test
    void aRightCountWithAnotherRecordsSequenceIsOneProcessedTwiceAndOneNever() {
        ExactlyOnceCheck.Result result = check(List.of("1:1", "2:1", "3:3"), List.of("1:1", "2:2"));

        assertThat(result.wrongSequence()).isEqualTo(1);
        assertThat(result.repeated() + result.skipped()).isZero();
        assertThat(result.exactlyOnce()).isFalse();
    }

    @Test
    void aShortOutputIsInputNeverCountedAndALongOneOutputFromNothing() {
        ExactlyOnceCheck.Result shortOutput = check(List.of("1:1", "2:2"), List.of("1:1", "2:2"));
        ExactlyOnceCheck.Result longOutput = check(List.of("1:1", "2:2", "3:3"), List.of("1:1", "2:2", "3:3"));

        assertThat(shortOutput.missing()).isEqualTo(1);
        assertThat(longOutput.extra()).isEqualTo(1);
        assertThat(shortOutput.exactlyOnce()).isFalse();
        assertThat(longOutput.exactlyOnce()).isFalse();
    }

    @Test
    void anOutputKeyWithNoInputIsExtra() {
        ExactlyOnceCheck.Result result = ExactlyOnceCheck.check(
                INPUTS, Map.of("a", List.of("1:1", "2:2", "3:3"), "b", List.of("1:1", "2:2"), "c", List.of("1:1")));

        assertThat(result.extra()).isEqualTo(1);
        assertThat(result.keysWrong()).containsExactly("c");
    }
}
