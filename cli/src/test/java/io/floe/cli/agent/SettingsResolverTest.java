package io.floe.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingsResolverTest {

    private static AgentSettings resolve(
            Map<Setting, String> flags, Map<String, String> env, Map<String, String> file) {
        EnumMap<Setting, String> flagMap = new EnumMap<>(Setting.class);
        flagMap.putAll(flags);
        return SettingsResolver.resolve(flagMap, env, new ConfigFile("floe.properties", file));
    }

    private static AgentSettings resolveFlags(Setting setting, String value) {
        return resolve(Map.of(setting, value), Map.of(), Map.of());
    }

    @Test
    void defaultsAreTheDocumentedOnes() {
        AgentSettings settings = resolve(Map.of(), Map.of(), Map.of());

        assertThat(settings.listen()).isEqualTo(new HostPort("127.0.0.1", 9092));
        assertThat(settings.advertise()).isEqualTo(settings.listen());
        assertThat(settings.httpListen()).isEqualTo(new HostPort("127.0.0.1", 9644));
        assertThat(settings.dataDir()).isEqualTo(Path.of("floe-data").toAbsolutePath());
        assertThat(settings.flushIntervalMs()).isEqualTo(20);
        assertThat(settings.flushMaxBytes()).isEqualTo(8L * 1024 * 1024);
        assertThat(settings.cacheBytes()).isEqualTo(256L * 1024 * 1024);
        assertThat(settings.nodeId()).isZero();
        assertThat(settings.clusterId()).isEqualTo("floe-cluster");
        assertThat(settings.autoCreateTopics()).isTrue();
        assertThat(settings.defaultPartitions()).isEqualTo(1);
        assertThat(settings.maxMessageBytes()).isEqualTo(1_048_588);
    }

    @Test
    void flagWinsOverEnvironmentWhichWinsOverFileWhichWinsOverDefault() {
        Map<String, String> file = Map.of("flush-interval-ms", "30", "node-id", "3", "cache-bytes", "1000");
        Map<String, String> env = Map.of("FLOE_FLUSH_INTERVAL_MS", "40", "FLOE_NODE_ID", "4");
        Map<Setting, String> flags = Map.of(Setting.FLUSH_INTERVAL_MS, "50");

        AgentSettings settings = resolve(flags, env, file);

        assertThat(settings.flushIntervalMs()).isEqualTo(50); // flag over env and file
        assertThat(settings.nodeId()).isEqualTo(4); // env over file
        assertThat(settings.cacheBytes()).isEqualTo(1000); // file over default
        assertThat(settings.defaultPartitions()).isEqualTo(1); // default
    }

    @Test
    void everySettingIsReadFromItsEnvironmentVariable() {
        Map<String, String> env = Map.ofEntries(
                Map.entry("FLOE_LISTEN", "10.0.0.1:19092"),
                Map.entry("FLOE_ADVERTISE", "broker.example:9092"),
                Map.entry("FLOE_HTTP_LISTEN", "10.0.0.1:0"),
                Map.entry("FLOE_DATA_DIR", "/var/lib/floe"),
                Map.entry("FLOE_FLUSH_INTERVAL_MS", "250"),
                Map.entry("FLOE_FLUSH_MAX_BYTES", "4096"),
                Map.entry("FLOE_CACHE_BYTES", "0"),
                Map.entry("FLOE_NODE_ID", "7"),
                Map.entry("FLOE_CLUSTER_ID", "prod-1"),
                Map.entry("FLOE_AUTO_CREATE_TOPICS", "FALSE"),
                Map.entry("FLOE_DEFAULT_PARTITIONS", "6"),
                Map.entry("FLOE_MAX_MESSAGE_BYTES", "2097152"));

        AgentSettings settings = resolve(Map.of(), env, Map.of());

        assertThat(settings).isEqualTo(new AgentSettings(
                new HostPort("10.0.0.1", 19092),
                new HostPort("broker.example", 9092),
                new HostPort("10.0.0.1", 0),
                Path.of("/var/lib/floe"),
                250, 4096, 0, 7, "prod-1", false, 6, 2_097_152));
    }

    @Test
    void blankEnvironmentVariablesCountAsUnset() {
        AgentSettings settings = resolve(Map.of(), Map.of("FLOE_NODE_ID", " "), Map.of("node-id", "2"));

        assertThat(settings.nodeId()).isEqualTo(2);
    }

    @Test
    void ipv6AddressesAreWrittenInBrackets() {
        AgentSettings settings = resolveFlags(Setting.LISTEN, "[::1]:9093");

        assertThat(settings.listen()).isEqualTo(new HostPort("::1", 9093));
        assertThat(settings.listen()).hasToString("[::1]:9093");
    }

    @Test
    void anInvalidFlagIsNamedWithItsValue() {
        assertThatThrownBy(() -> resolveFlags(Setting.FLUSH_INTERVAL_MS, "soon"))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessage("invalid value 'soon' for --flush-interval-ms: expected an integer from 1 to 60000");
    }

    @Test
    void anInvalidValueNamesTheEnvironmentVariableItCameFrom() {
        assertThatThrownBy(() -> resolve(Map.of(), Map.of("FLOE_CACHE_BYTES", "-1"), Map.of()))
                .hasMessage("invalid value '-1' for --cache-bytes (from environment variable FLOE_CACHE_BYTES):"
                        + " expected an integer from 0 to 9223372036854775807");
    }

    @Test
    void anInvalidValueNamesTheConfigFileItCameFrom() {
        assertThatThrownBy(() -> resolve(Map.of(), Map.of(), Map.of("auto-create-topics", "yes")))
                .hasMessage("invalid value 'yes' for --auto-create-topics (from config file floe.properties):"
                        + " expected true or false");
    }

    @Test
    void rejectsValuesOutOfRange() {
        assertThatThrownBy(() -> resolveFlags(Setting.FLUSH_MAX_BYTES, "1023"))
                .hasMessageContaining("'1023' for --flush-max-bytes");
        assertThatThrownBy(() -> resolveFlags(Setting.DEFAULT_PARTITIONS, "0"))
                .hasMessageContaining("'0' for --default-partitions");
        assertThatThrownBy(() -> resolveFlags(Setting.NODE_ID, "-1"))
                .hasMessageContaining("'-1' for --node-id");
        assertThatThrownBy(() -> resolveFlags(Setting.MAX_MESSAGE_BYTES, "3000000000"))
                .hasMessageContaining("'3000000000' for --max-message-bytes");
        assertThatThrownBy(() -> resolveFlags(Setting.CLUSTER_ID, "my cluster"))
                .hasMessageContaining("'my cluster' for --cluster-id");
    }

    @Test
    void rejectsMalformedAddresses() {
        assertThatThrownBy(() -> resolveFlags(Setting.LISTEN, "9092"))
                .hasMessage("invalid value '9092' for --listen: expected HOST:PORT");
        assertThatThrownBy(() -> resolveFlags(Setting.LISTEN, "localhost:http"))
                .hasMessage("invalid value 'localhost:http' for --listen: expected HOST:PORT with a numeric port");
        assertThatThrownBy(() -> resolveFlags(Setting.HTTP_LISTEN, "localhost:70000"))
                .hasMessage("invalid value 'localhost:70000' for --http-listen: port 70000 is outside 0-65535");
        assertThatThrownBy(() -> resolveFlags(Setting.LISTEN, "localhost:0"))
                .hasMessage("invalid value 'localhost:0' for --listen: expected a port from 1 to 65535");
    }

    @Test
    void aWildcardListenerNeedsAnAdvertisedAddress() {
        assertThatThrownBy(() -> resolveFlags(Setting.LISTEN, "0.0.0.0:9092"))
                .hasMessageStartingWith("--listen 0.0.0.0:9092 binds every interface")
                .hasMessageContaining("--advertise HOST:PORT");

        AgentSettings settings = resolve(
                Map.of(Setting.LISTEN, "0.0.0.0:9092", Setting.ADVERTISE, "10.1.2.3:9092"), Map.of(), Map.of());
        assertThat(settings.listen()).isEqualTo(new HostPort("0.0.0.0", 9092));
        assertThat(settings.advertise()).isEqualTo(new HostPort("10.1.2.3", 9092));
    }

    @Test
    void theAdvertisedAddressCannotBeAWildcard() {
        assertThatThrownBy(() -> resolveFlags(Setting.ADVERTISE, "0.0.0.0:9092"))
                .hasMessageStartingWith("invalid value '0.0.0.0:9092' for --advertise: clients cannot connect");
    }

    @Test
    void rejectsUnknownKeysInTheConfigFile() {
        assertThatThrownBy(() -> resolve(Map.of(), Map.of(), Map.of("flush-interval", "20")))
                .hasMessageStartingWith(
                        "unknown setting 'flush-interval' in config file floe.properties (known: listen,");
    }

    @Test
    void agentConfigCarriesTheSettings() {
        AgentSettings settings = resolve(
                Map.of(Setting.ADVERTISE, "floe.example:9092", Setting.FLUSH_INTERVAL_MS, "7"), Map.of(), Map.of());

        var config = settings.agentConfig("agent-0-1");

        assertThat(config.agentId()).isEqualTo("agent-0-1");
        assertThat(config.advertisedHost()).isEqualTo("floe.example");
        assertThat(config.advertisedPort()).isEqualTo(9092);
        assertThat(config.flushInterval()).hasMillis(7);
        assertThat(config.maxMessageBytes()).isEqualTo(1_048_588);
    }

    @Test
    void storesLiveInTheDataDirectory() {
        AgentSettings settings = resolveFlags(Setting.DATA_DIR, "/tmp/floe-x/");

        assertThat(settings.metadataUrl()).isEqualTo("sqlite:/tmp/floe-x/metadata.db");
        assertThat(settings.objectsUrl()).isEqualTo("file:/tmp/floe-x/objects");
        assertThat(settings.describe())
                .contains("data-dir=/tmp/floe-x", "flush-interval-ms=20", "listen=127.0.0.1:9092");
    }
}
