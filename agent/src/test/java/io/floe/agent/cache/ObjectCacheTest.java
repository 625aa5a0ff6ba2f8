package io.floe.agent.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class ObjectCacheTest {

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();

    @Test
    void servesAnyRangeInsideACachedObject() {
        ObjectCache cache = new ObjectCache(1024, meters);
        ObjectKey key = new ObjectKey("segments/00/a.seg");
        cache.put(key, 0, bytes(100));

        ByteBuffer slice = cache.get(key, new ByteRange(10, 5)).orElseThrow();

        assertThat(slice.remaining()).isEqualTo(5);
        assertThat(slice.get(0)).isEqualTo((byte) 10);
        assertThat(cache.get(key, new ByteRange(98, 5))).isEmpty();
        assertThat(meters.get("floe.cache.requests")
                        .tag("result", "hit")
                        .counter()
                        .count())
                .isEqualTo(1);
        assertThat(meters.get("floe.cache.requests")
                        .tag("result", "miss")
                        .counter()
                        .count())
                .isEqualTo(1);
    }

    @Test
    void servesRangesCachedAtAnOffset() {
        ObjectCache cache = new ObjectCache(1024, meters);
        ObjectKey key = new ObjectKey("segments/00/b.seg");
        cache.put(key, 500, bytes(50));

        assertThat(cache.get(key, new ByteRange(510, 10)).orElseThrow().get(0)).isEqualTo((byte) 10);
        assertThat(cache.get(key, new ByteRange(490, 20))).isEmpty();
    }

    @Test
    void evictsLeastRecentlyUsedObjectsToStayWithinItsBound() {
        ObjectCache cache = new ObjectCache(250, meters);
        ObjectKey first = new ObjectKey("a");
        ObjectKey second = new ObjectKey("b");
        ObjectKey third = new ObjectKey("c");
        cache.put(first, 0, bytes(100));
        cache.put(second, 0, bytes(100));
        cache.get(first, new ByteRange(0, 1));
        cache.put(third, 0, bytes(100));

        assertThat(cache.bytesCached()).isLessThanOrEqualTo(250);
        assertThat(cache.get(second, new ByteRange(0, 1))).isEmpty();
        assertThat(cache.get(first, new ByteRange(0, 1))).isPresent();
        assertThat(cache.get(third, new ByteRange(0, 1))).isPresent();
    }

    @Test
    void ignoresObjectsLargerThanTheWholeCache() {
        ObjectCache cache = new ObjectCache(10, meters);
        cache.put(new ObjectKey("big"), 0, bytes(11));

        assertThat(cache.bytesCached()).isZero();
    }

    private static ByteBuffer bytes(int size) {
        ByteBuffer buffer = ByteBuffer.allocate(size);
        for (int i = 0; i < size; i++) {
            buffer.put((byte) i);
        }
        return buffer.flip();
    }
}
