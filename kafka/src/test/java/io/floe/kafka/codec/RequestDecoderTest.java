package io.floe.kafka.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.Map;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;

/** Frames that cannot be served decode to the case that says why, never to an exception. */
class RequestDecoderTest {

    private final RequestDecoder decoder =
            new RequestDecoder(Map.of(ApiKeys.METADATA, new VersionRange((short) 0, (short) 12)));

    @Test
    void unknownApiKeyKeepsTheCorrelationId() {
        ByteBuffer frame = ByteBuffer.allocate(10)
                .putShort((short) 9999)
                .putShort((short) 0)
                .putInt(42)
                .putShort((short) -1)
                .flip();

        assertThat(decoder.decode(frame)).isEqualTo(new DecodedRequest.UnknownApi((short) 9999, (short) 0, 42));
    }

    @Test
    void versionOutsideTheServedRangeIsUnsupported() {
        ByteBuffer frame = RequestEncoder.encode(
                new RequestHeader(ApiKeys.METADATA, (short) 13, "c", 7), new MetadataRequestData());

        DecodedRequest decoded = decoder.decode(frame);

        assertThat(decoded).isInstanceOf(DecodedRequest.UnsupportedVersion.class);
        assertThat(((DecodedRequest.UnsupportedVersion) decoded).header().correlationId())
                .isEqualTo(7);
    }

    @Test
    void apiNotServedAtAllIsUnsupported() {
        ByteBuffer frame = RequestEncoder.encode(
                new RequestHeader(ApiKeys.FIND_COORDINATOR, (short) 4, "c", 8),
                new org.apache.kafka.common.message.FindCoordinatorRequestData());

        assertThat(decoder.decode(frame)).isInstanceOf(DecodedRequest.UnsupportedVersion.class);
    }

    @Test
    void shortFrameHasAMalformedHeader() {
        assertThat(decoder.decode(ByteBuffer.allocate(5))).isInstanceOf(DecodedRequest.MalformedHeader.class);
    }

    @Test
    void clientIdRunningPastTheFrameIsAMalformedHeader() {
        ByteBuffer frame = ByteBuffer.allocate(12)
                .putShort(ApiKeys.METADATA.id)
                .putShort((short) 1)
                .putInt(3)
                .putShort((short) 500)
                .putShort((short) 0)
                .flip();

        assertThat(decoder.decode(frame)).isInstanceOf(DecodedRequest.MalformedHeader.class);
    }

    @Test
    void truncatedBodyIsMalformedWithTheHeaderKept() {
        ByteBuffer full = RequestEncoder.encode(
                new RequestHeader(ApiKeys.METADATA, (short) 12, "c", 9),
                new MetadataRequestData()
                        .setTopics(
                                java.util.List.of(new MetadataRequestData.MetadataRequestTopic().setName("orders"))));
        ByteBuffer truncated = full.duplicate().limit(full.limit() - 6);

        DecodedRequest decoded = decoder.decode(truncated);

        assertThat(decoded).isInstanceOf(DecodedRequest.MalformedBody.class);
        assertThat(((DecodedRequest.MalformedBody) decoded).header().correlationId())
                .isEqualTo(9);
    }
}
