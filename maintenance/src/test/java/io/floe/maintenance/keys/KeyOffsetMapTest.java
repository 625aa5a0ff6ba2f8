package io.floe.maintenance.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KeyOffsetMapTest {

    @Test
    void keepsTheNewestOffsetOfEachKey() {
        KeyOffsetMap map = new KeyOffsetMap(1024);

        map.put(key("a"), 3);
        map.put(key("b"), 4);
        map.put(key("a"), 7);
        map.put(key("a"), 5);

        assertThat(map.get(key("a"))).isEqualTo(7);
        assertThat(map.get(key("b"))).isEqualTo(4);
        assertThat(map.get(key("c"))).isEqualTo(-1);
        assertThat(map.size()).isEqualTo(2);
    }

    @Test
    void offsetZeroIsAnOffsetLikeAnyOther() {
        KeyOffsetMap map = new KeyOffsetMap(1024);

        map.put(key("a"), 0);

        assertThat(map.get(key("a"))).isZero();
        assertThat(map.size()).isEqualTo(1);
    }

    @Test
    void fillsToItsCapacityThroughCollidingSlotsAndRefusesMore() {
        KeyOffsetMap map = new KeyOffsetMap(24 * 100);
        assertThat(map.capacity()).isEqualTo(90).isEqualTo(KeyOffsetMap.capacityFor(24 * 100));

        for (int i = 0; i < 90; i++) {
            map.put(key("key-" + i), i);
        }

        for (int i = 0; i < 90; i++) {
            assertThat(map.get(key("key-" + i))).as("key-%d", i).isEqualTo(i);
        }
        map.put(key("key-5"), 1000);
        assertThat(map.get(key("key-5"))).isEqualTo(1000);
        assertThatThrownBy(() -> map.put(key("one-more"), 1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void clearingForgetsEveryKey() {
        KeyOffsetMap map = new KeyOffsetMap(1024);
        map.put(key("a"), 1);

        map.clear();

        assertThat(map.get(key("a"))).isEqualTo(-1);
        assertThat(map.size()).isZero();
    }

    @Test
    void readsTheKeyFromItsPositionWithoutMovingIt() {
        KeyOffsetMap map = new KeyOffsetMap(1024);
        ByteBuffer framed =
                ByteBuffer.wrap("xxabc".getBytes(StandardCharsets.UTF_8)).position(2);

        map.put(framed, 9);

        assertThat(framed.position()).isEqualTo(2);
        assertThat(map.get(key("abc"))).isEqualTo(9);
    }

    private static ByteBuffer key(String text) {
        return ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
    }
}
