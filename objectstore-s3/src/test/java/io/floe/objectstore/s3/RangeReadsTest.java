package io.floe.objectstore.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.object.ByteRange;
import io.floe.core.object.ObjectKey;
import io.floe.core.object.ObjectStoreException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/** Responses some stores give that S3Proxy does not: no Content-Range, short bodies, odd headers. */
class RangeReadsTest {

    private static final ObjectKey KEY = new ObjectKey("k");
    private static final byte[] OBJECT = "0123456789".getBytes();
    private static final RangeReads.PastEnd PAST_END =
            (key, range, size) -> new ObjectStoreException("past end of " + size, false);

    @Test
    void readsAPartialContentAnswer() throws IOException {
        ByteBuffer read = RangeReads.read(response("bytes 2-4/10", 3, slice(2, 5)), KEY, new ByteRange(2, 3), PAST_END);

        assertThat(bytes(read)).isEqualTo(slice(2, 5));
    }

    @Test
    void takesTheRangeFromAWholeObjectWhenTheStoreIgnoresRange() throws IOException {
        ByteBuffer read = RangeReads.read(response(null, 10, OBJECT), KEY, new ByteRange(7, 3), PAST_END);

        assertThat(bytes(read)).isEqualTo(slice(7, 10));
        assertThatThrownBy(() -> RangeReads.read(response(null, 10, OBJECT), KEY, new ByteRange(8, 3), PAST_END))
                .hasMessage("past end of 10");
    }

    @Test
    void rejectsAShortenedRangeAsPastTheEnd() {
        assertThatThrownBy(() ->
                        RangeReads.read(response("bytes 8-9/10", 2, slice(8, 10)), KEY, new ByteRange(8, 5), PAST_END))
                .hasMessage("past end of 10");
        assertThatThrownBy(() ->
                        RangeReads.read(response("bytes 8-9/*", 2, slice(8, 10)), KEY, new ByteRange(8, 5), PAST_END))
                .hasMessage("past end of 10");
    }

    @Test
    void treatsATruncatedBodyOrAnUnexpectedRangeAsAnIoError() {
        assertThatThrownBy(() ->
                        RangeReads.read(response("bytes 2-4/10", 3, slice(2, 4)), KEY, new ByteRange(2, 3), PAST_END))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("ended after 2 of 3 bytes");
        assertThatThrownBy(() ->
                        RangeReads.read(response("bytes 0-2/10", 3, slice(0, 3)), KEY, new ByteRange(2, 3), PAST_END))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("unexpected Content-Range");
    }

    @Test
    void readsWholeObjectsOfAKnownSize() throws IOException {
        assertThat(bytes(RangeReads.readWhole(response(null, 10, OBJECT), KEY, "here")))
                .isEqualTo(OBJECT);
        assertThatThrownBy(() -> RangeReads.readWhole(response(null, null, OBJECT), KEY, "here"))
                .isInstanceOf(ObjectStoreException.class)
                .hasMessageContaining("an unknown number of bytes");
        assertThatThrownBy(() -> RangeReads.readWhole(response(null, 3L << 31, OBJECT), KEY, "here"))
                .isInstanceOf(ObjectStoreException.class)
                .hasMessageContaining("6442450944 bytes, more than one buffer holds");
    }

    private static ResponseInputStream<GetObjectResponse> response(String contentRange, Number length, byte[] body) {
        GetObjectResponse response = GetObjectResponse.builder()
                .contentRange(contentRange)
                .contentLength(length == null ? null : length.longValue())
                .build();
        return new ResponseInputStream<>(response, AbortableInputStream.create(new ByteArrayInputStream(body)));
    }

    private static byte[] slice(int from, int to) {
        return Arrays.copyOfRange(OBJECT, from, to);
    }

    private static byte[] bytes(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }
}
