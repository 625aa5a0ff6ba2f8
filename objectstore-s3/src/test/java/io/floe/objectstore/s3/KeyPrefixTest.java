package io.floe.objectstore.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.core.object.ObjectKey;
import org.junit.jupiter.api.Test;

class KeyPrefixTest {

    private final KeyPrefix none = new KeyPrefix("");
    private final KeyPrefix prefix = new KeyPrefix("floe/data");

    @Test
    void joinsWithExactlyOneSlash() {
        assertThat(none.toBucketKey(new ObjectKey("segments/ab/1.seg"))).isEqualTo("segments/ab/1.seg");
        assertThat(prefix.toBucketKey(new ObjectKey("segments/ab/1.seg"))).isEqualTo("floe/data/segments/ab/1.seg");
        assertThat(none.toBucketPrefix("")).isEmpty();
        assertThat(prefix.toBucketPrefix("")).isEqualTo("floe/data/");
        assertThat(prefix.toBucketPrefix("seg")).isEqualTo("floe/data/seg");
    }

    @Test
    void stripsThePrefixFromListedKeys() {
        assertThat(prefix.toObjectKey("floe/data/segments/1")).contains(new ObjectKey("segments/1"));
        assertThat(none.toObjectKey("segments/1")).contains(new ObjectKey("segments/1"));
    }

    @Test
    void ignoresBucketKeysOutsideThePrefixOrNotObjectKeys() {
        assertThat(prefix.toObjectKey("floe/data")).isEmpty();
        assertThat(prefix.toObjectKey("floe/data/")).isEmpty();
        assertThat(prefix.toObjectKey("floe/data-x/1")).isEmpty();
        assertThat(prefix.toObjectKey("other/1")).isEmpty();
        assertThat(prefix.toObjectKey("floe/data//1")).isEmpty();
        assertThat(none.toObjectKey("a/../b")).isEmpty();
    }
}
