package io.floe.agent.fetch;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.object.ByteRange;
import java.util.List;
import org.junit.jupiter.api.Test;

class FetchReaderTest {

    @Test
    void mergesTouchingAndOverlappingRangesIntoOneRead() {
        List<ByteRange> merged = FetchReader.merge(List.of(
                new ByteRange(200, 50), new ByteRange(5, 10), new ByteRange(15, 20), new ByteRange(30, 10),
                new ByteRange(251, 4)));

        assertThat(merged).containsExactly(new ByteRange(5, 35), new ByteRange(200, 50), new ByteRange(251, 4));
    }
}
