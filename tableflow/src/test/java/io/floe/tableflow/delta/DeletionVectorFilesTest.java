package io.floe.tableflow.delta;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The examples of Delta's protocol, "Deletion Vector Descriptor Schema". */
class DeletionVectorFilesTest {

    @Test
    void aUuidPathIsTheUuidsFileBelowItsPrefix() {
        assertThat(DeletionVectorFiles.path("u", "ab^-aqEH.-t@S}K{vb[*k^"))
                .contains("ab/deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin");
        assertThat(DeletionVectorFiles.path("u", "^-aqEH.-t@S}K{vb[*k^"))
                .contains("deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin");
    }

    @Test
    void anAbsolutePathIsItselfAndAnInlineVectorHasNoFile() {
        assertThat(DeletionVectorFiles.path("p", "s3://mytable/deletion_vector_d2c6.bin"))
                .contains("s3://mytable/deletion_vector_d2c6.bin");
        assertThat(DeletionVectorFiles.path("i", "wi5b=000010000siXQKl0rr91000f55c8Xg0@@D72lkbi5=-{L"))
                .isEmpty();
        assertThat(DeletionVectorFiles.uniqueId("p", "s3://t/dv.puffin", 4)).isEqualTo("ps3://t/dv.puffin@4");
        assertThat(DeletionVectorFiles.uniqueId("i", "wi5b", null)).isEqualTo("iwi5b");
    }

    @Test
    void refusesWhatItCannotLocate() {
        assertThatThrownBy(() -> DeletionVectorFiles.path("x", "abc")).hasMessageContaining("'x'");
        assertThatThrownBy(() -> DeletionVectorFiles.path("u", "short")).hasMessageContaining("shorter");
        assertThatThrownBy(() -> DeletionVectorFiles.path("u", "ab^-aqEH.-t@S}K{vb[*k\""))
                .hasMessageContaining("not Z85");
    }
}
