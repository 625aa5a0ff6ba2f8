package io.floe.kafka.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.core.log.RecordChunk;
import io.floe.core.object.ByteRange;
import io.floe.core.object.LocalObjectStore;
import io.floe.core.object.ObjectFileRange;
import io.floe.core.object.ObjectKey;
import io.floe.kafka.AgentFixture;
import io.floe.kafka.api.ApiRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.FileRegion;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.ApiMessageType;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every version of every API in the registry survives encode then decode, requests and responses. */
class CodecRoundTripTest {

    private static final Map<ApiKeys, VersionRange> SERVED = servedVersions();
    private static final java.util.Set<ApiKeys> GROUP_APIS = java.util.EnumSet.of(
            ApiKeys.FIND_COORDINATOR,
            ApiKeys.JOIN_GROUP,
            ApiKeys.SYNC_GROUP,
            ApiKeys.HEARTBEAT,
            ApiKeys.LEAVE_GROUP,
            ApiKeys.OFFSET_COMMIT,
            ApiKeys.OFFSET_FETCH,
            ApiKeys.OFFSET_DELETE,
            ApiKeys.LIST_GROUPS,
            ApiKeys.DESCRIBE_GROUPS,
            ApiKeys.DELETE_GROUPS,
            ApiKeys.CONSUMER_GROUP_HEARTBEAT,
            ApiKeys.CONSUMER_GROUP_DESCRIBE);
    private static final UnpooledByteBufAllocator ALLOCATOR = new UnpooledByteBufAllocator(false);

    /** The registry's ranges; building it needs an agent, but no API is called. */
    private static Map<ApiKeys, VersionRange> servedVersions() {
        try {
            Path dir = Files.createTempDirectory("floe-codec-test");
            try (AgentFixture fixture = AgentFixture.agentOnly(dir)) {
                return Map.copyOf(ApiRegistry.standard(fixture.agent(), () -> "", new SplittableRandom(1))
                        .servedVersions());
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Every served version of the APIs with populated samples here. The group APIs are covered
     * version by version over the wire by {@code io.floe.kafka.group.GroupApisWireTest}, and by the
     * default-message round trips below.
     */
    static Stream<Arguments> apiVersions() {
        return versions(key -> !GROUP_APIS.contains(key));
    }

    static Stream<Arguments> allApiVersions() {
        return versions(key -> true);
    }

    private static Stream<Arguments> versions(java.util.function.Predicate<ApiKeys> include) {
        List<Arguments> arguments = new ArrayList<>();
        SERVED.forEach((key, range) -> {
            if (!include.test(key)) {
                return;
            }
            for (short version = range.min(); version <= range.max(); version++) {
                arguments.add(Arguments.of(key, version));
            }
        });
        return arguments.stream();
    }

    @Test
    void registryServesTheApisFloeImplements() {
        assertThat(SERVED)
                .containsOnlyKeys(
                        ApiKeys.API_VERSIONS,
                        ApiKeys.METADATA,
                        ApiKeys.PRODUCE,
                        ApiKeys.FETCH,
                        ApiKeys.LIST_OFFSETS,
                        ApiKeys.INIT_PRODUCER_ID,
                        ApiKeys.CREATE_TOPICS,
                        ApiKeys.DELETE_TOPICS,
                        ApiKeys.CREATE_PARTITIONS,
                        ApiKeys.DESCRIBE_CONFIGS,
                        ApiKeys.DESCRIBE_CLUSTER,
                        ApiKeys.FIND_COORDINATOR,
                        ApiKeys.JOIN_GROUP,
                        ApiKeys.SYNC_GROUP,
                        ApiKeys.HEARTBEAT,
                        ApiKeys.LEAVE_GROUP,
                        ApiKeys.OFFSET_COMMIT,
                        ApiKeys.OFFSET_FETCH,
                        ApiKeys.OFFSET_DELETE,
                        ApiKeys.LIST_GROUPS,
                        ApiKeys.DESCRIBE_GROUPS,
                        ApiKeys.DELETE_GROUPS,
                        ApiKeys.CONSUMER_GROUP_HEARTBEAT,
                        ApiKeys.CONSUMER_GROUP_DESCRIBE,
                        ApiKeys.OFFSET_FOR_LEADER_EPOCH,
                        ApiKeys.INCREMENTAL_ALTER_CONFIGS,
                        ApiKeys.ALTER_CONFIGS,
                        ApiKeys.DELETE_RECORDS,
                        ApiKeys.DESCRIBE_PRODUCERS,
                        ApiKeys.DESCRIBE_LOG_DIRS,
                        ApiKeys.LIST_PARTITION_REASSIGNMENTS,
                        ApiKeys.ELECT_LEADERS,
                        ApiKeys.ADD_PARTITIONS_TO_TXN,
                        ApiKeys.ADD_OFFSETS_TO_TXN,
                        ApiKeys.END_TXN,
                        ApiKeys.TXN_OFFSET_COMMIT,
                        ApiKeys.WRITE_TXN_MARKERS,
                        ApiKeys.DESCRIBE_TRANSACTIONS,
                        ApiKeys.LIST_TRANSACTIONS);
        SERVED.forEach(
                (key, range) -> assertThat(key.isVersionSupported(range.min()) && key.isVersionSupported(range.max()))
                        .as("%s %s within kafka-clients' versions", key, range)
                        .isTrue());
    }

    @ParameterizedTest(name = "{0} v{1}")
    @MethodSource("apiVersions")
    void requestRoundTrips(ApiKeys key, short version) {
        ApiMessage sample = Samples.request(key, version);
        RequestHeader header = new RequestHeader(key, version, "client-1", 77);

        DecodedRequest decoded = new RequestDecoder(SERVED).decode(RequestEncoder.encode(header, sample));

        assertThat(decoded).isInstanceOf(DecodedRequest.Valid.class);
        DecodedRequest.Valid valid = (DecodedRequest.Valid) decoded;
        assertThat(valid.header().apiKey()).isEqualTo(key);
        assertThat(valid.header().apiVersion()).isEqualTo(version);
        assertThat(valid.header().correlationId()).isEqualTo(77);
        assertThat(valid.header().clientId()).isEqualTo("client-1");
        assertThat(valid.body()).isEqualTo(sample);
    }

    @ParameterizedTest(name = "{0} v{1}")
    @MethodSource("apiVersions")
    void responseRoundTrips(ApiKeys key, short version) {
        ApiMessage sample = ResponseSamples.response(key, version);

        DecodedResponse decoded = decodeFrame(encode(91, key, version, sample), key, version);

        assertThat(decoded.correlationId()).isEqualTo(91);
        assertThat(decoded.body()).isEqualTo(sample);
    }

    @ParameterizedTest(name = "{0} v{1}")
    @MethodSource("allApiVersions")
    void defaultMessagesRoundTrip(ApiKeys key, short version) {
        ApiMessage request = ApiMessageType.fromApiKey(key.id).newRequest();
        ApiMessage response = ApiMessageType.fromApiKey(key.id).newResponse();

        DecodedRequest decoded = new RequestDecoder(SERVED)
                .decode(RequestEncoder.encode(new RequestHeader(key, version, "", 1), request));

        assertThat(((DecodedRequest.Valid) decoded).body()).isEqualTo(request);
        assertThat(decodeFrame(encode(1, key, version, response), key, version).body())
                .isEqualTo(response);
    }

    @ParameterizedTest(name = "{0} v{1}")
    @MethodSource("apiVersions")
    void everyVersionHasAnEncodableErrorResponse(ApiKeys key, short version) {
        ApiMessage error = ErrorResponses.of(
                        key, version, Samples.request(key, version), new InvalidRequestException("bad"))
                .orElseThrow();

        // The error response may set fields this version lacks; what is encoded must read back the same.
        ApiMessage decoded =
                decodeFrame(encode(5, key, version, error), key, version).body();
        assertThat(decodeFrame(encode(5, key, version, decoded), key, version).body())
                .isEqualTo(decoded);
        assertThat(ErrorResponses.of(key, version, null, new InvalidRequestException("bad")))
                .isPresent();
    }

    @Test
    void fetchedRecordsAreWrappedNotCopied() {
        MemoryRecords records = Samples.records(200, 1000);
        FetchResponseData response = ResponseSamples.fetchResponse((short) 18, records);

        ByteBuf frame = encode(3, ApiKeys.FETCH, (short) 18, response);

        assertThat(frame).isInstanceOf(CompositeByteBuf.class);
        assertThat(((CompositeByteBuf) frame).numComponents()).isEqualTo(3);
        DecodedResponse decoded = decodeFrame(frame, ApiKeys.FETCH, (short) 18);
        FetchResponseData.PartitionData partition = ((FetchResponseData) decoded.body())
                .responses()
                .get(0)
                .partitions()
                .get(0);
        assertThat(partition.records()).isEqualTo(records);
        assertThat(decoded.body()).isEqualTo(response);
    }

    @Test
    void recordsInAnObjectFileGoOutAsAFileRegionBetweenTheBuffers(@TempDir Path dir) throws IOException {
        MemoryRecords records = Samples.records(200, 1000);
        ByteBuffer stored = records.buffer().duplicate();
        stored.putLong(0, 12_345L); // stored with the producer's offset; the fetch sends the assigned one
        ObjectKey key = new ObjectKey("segments/00/a.seg");
        ObjectFileRange file;
        try (LocalObjectStore objects = new LocalObjectStore(dir)) {
            objects.put(key, stored);
            file = objects.getFileRange(key, new ByteRange(0, stored.remaining()));
        }
        long assigned = records.batches().iterator().next().baseOffset();
        ChunkedRecords chunks = new ChunkedRecords(List.of(
                new RecordChunk.InMemory(ByteBuffer.allocate(8).putLong(0, assigned)),
                new RecordChunk.InFile(file, 8, stored.remaining() - 8)));
        FetchResponseData response = ResponseSamples.fetchResponse((short) 18, MemoryRecords.EMPTY);
        response.responses().get(0).partitions().get(0).setRecords(chunks);

        EncodedFrame frame = ResponseEncoder.encode(ALLOCATOR, 3, ApiKeys.FETCH, (short) 18, response);

        assertThat(frame.parts()).hasSize(3);
        assertThat(frame.parts().get(1)).isInstanceOf(FileRegion.class);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        WritableByteChannel channel = Channels.newChannel(wire);
        for (Object part : frame.parts()) {
            if (part instanceof ByteBuf buffer) {
                buffer.readBytes(wire, buffer.readableBytes());
            } else {
                FileRegion region = (FileRegion) part;
                while (region.transferred() < region.count()) {
                    region.transferTo(channel, region.transferred());
                }
            }
        }
        assertThat((long) wire.size()).isEqualTo(frame.bytes());
        FetchResponseData decoded =
                (FetchResponseData) decodeFrame(Unpooled.wrappedBuffer(wire.toByteArray()), ApiKeys.FETCH, (short) 18)
                        .body();
        assertThat(decoded.responses().get(0).partitions().get(0).records()).isEqualTo(records);
        frame.release();
        assertThatThrownBy(file::retain)
                .as("the region released the file's last reference")
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void minimalErrorFrameCarriesCorrelationIdAndErrorCode() {
        ByteBuf frame = ResponseEncoder.encodeErrorCode(ALLOCATOR, 1234, Errors.UNSUPPORTED_VERSION)
                .toByteBuf();

        assertThat(frame.readInt()).isEqualTo(6);
        assertThat(frame.readInt()).isEqualTo(1234);
        assertThat(frame.readShort()).isEqualTo((short) 35);
        frame.release();
    }

    /** Checks the size prefix and decodes the rest as a client would. */
    static DecodedResponse decodeFrame(ByteBuf frame, ApiKeys key, short version) {
        try {
            int size = frame.readInt();
            assertThat(size).isEqualTo(frame.readableBytes());
            ByteBuffer bytes = ByteBuffer.allocate(size);
            frame.readBytes(bytes);
            return ResponseDecoder.decode(bytes.flip(), key, version);
        } finally {
            frame.release();
        }
    }

    private static ByteBuf encode(int correlationId, ApiKeys key, short version, ApiMessage body) {
        return ResponseEncoder.encode(ALLOCATOR, correlationId, key, version, body)
                .toByteBuf();
    }
}
