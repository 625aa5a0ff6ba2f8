package io.floe.cli.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.floe.agent.AgentConfig;
import io.floe.agent.cluster.NodeIds;
import io.floe.maintenance.MaintenanceConfig;
import io.floe.objectstore.s3.S3ObjectStoreConfig.StaticCredentials;
import io.floe.tableflow.TableflowConfig;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
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
        assertThat(settings.nodeId()).isEqualTo(NodeIds.ALLOCATED);
        assertThat(settings.clusterId()).isEqualTo("floe-cluster");
        assertThat(settings.autoCreateTopics()).isTrue();
        assertThat(settings.defaultPartitions()).isEqualTo(1);
        assertThat(settings.maxMessageBytes()).isEqualTo(1_048_588);
        Path dataDir = Path.of("floe-data").toAbsolutePath();
        assertThat(settings.metadataUrl()).isEqualTo("sqlite:" + dataDir.resolve("metadata.db"));
        assertThat(settings.objectsUrl()).isEqualTo("file:" + dataDir.resolve("objects"));
        assertThat(settings.s3()).isEqualTo(S3Options.DEFAULTS);
        assertThat(settings.s3().region()).isEqualTo("us-east-1");
        assertThat(settings.s3().pathStyleAccess()).isFalse();
        assertThat(settings.s3().credentials()).isEmpty();
        assertThat(settings.maintenance()).isTrue();
        MaintenanceConfig maintenance = settings.maintenanceConfig();
        assertThat(maintenance.compactionTargetBytes()).isEqualTo(64L << 20);
        assertThat(maintenance.objectDeleteDelay()).hasMillis(60_000);
        assertThat(maintenance.orphanGrace()).hasMillis(600_000);
        // The documented defaults are the maintenance module's own.
        assertThat(maintenance).isEqualTo(MaintenanceConfig.DEFAULTS);
    }

    @Test
    void theFlushIntervalDefaultsToTheObjectStoresOwn() {
        assertThat(resolve(Map.of(), Map.of(), Map.of()).flushIntervalMs()).isEqualTo(20);
        assertThat(resolveFlags(Setting.OBJECTS, "s3://bucket/prefix").flushIntervalMs())
                .as("4 PUTs per second")
                .isEqualTo(250);
        assertThat(resolve(
                                Map.of(Setting.OBJECTS, "s3://bucket/prefix", Setting.FLUSH_INTERVAL_MS, "50"),
                                Map.of(),
                                Map.of())
                        .flushIntervalMs())
                .isEqualTo(50);
    }

    @Test
    void theFlushSizeDefaultsToTheObjectStoresOwn() {
        assertThat(resolve(Map.of(), Map.of(), Map.of()).flushMaxBytes()).isEqualTo(8L << 20);
        assertThat(resolveFlags(Setting.OBJECTS, "s3://bucket/prefix").flushMaxBytes())
                .as("4 PUTs per second up to 128 MiB/s")
                .isEqualTo(32L << 20);
        assertThat(resolve(
                                Map.of(Setting.OBJECTS, "s3://bucket/prefix", Setting.FLUSH_MAX_BYTES, "4096"),
                                Map.of(),
                                Map.of())
                        .flushMaxBytes())
                .isEqualTo(4096);
    }

    @Test
    void flushingWhenProducersWaitDefaultsToOnForLocalFilesAndOffForS3() {
        assertThat(resolve(Map.of(), Map.of(), Map.of()).flushWhenProducersWait())
                .isTrue();
        assertThat(resolveFlags(Setting.OBJECTS, "s3://bucket/prefix").flushWhenProducersWait())
                .as("each early flush would be one more PUT")
                .isFalse();
        assertThat(resolve(Map.of(Setting.FLUSH_WHEN_PRODUCERS_WAIT, "false"), Map.of(), Map.of())
                        .agentConfig("agent-x")
                        .flushWhenProducersWait())
                .isFalse();
        assertThatThrownBy(() -> resolveFlags(Setting.FLUSH_WHEN_PRODUCERS_WAIT, "sometimes"))
                .hasMessageContaining("--flush-when-producers-wait")
                .hasMessageContaining("expected true or false");
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
                Map.entry("FLOE_FLUSH_WHEN_PRODUCERS_WAIT", "true"),
                Map.entry("FLOE_CACHE_BYTES", "0"),
                Map.entry("FLOE_NODE_ID", "7"),
                Map.entry("FLOE_CLUSTER_ID", "prod-1"),
                Map.entry("FLOE_AUTO_CREATE_TOPICS", "FALSE"),
                Map.entry("FLOE_DEFAULT_PARTITIONS", "6"),
                Map.entry("FLOE_MAX_MESSAGE_BYTES", "2097152"),
                Map.entry("FLOE_FETCH_MAX_WAIT_MS", "5000"),
                Map.entry("FLOE_METADATA", "postgresql://floe:pw@db.example:5432/floe"),
                Map.entry("FLOE_OBJECTS", "s3://floe-data/cluster-1"),
                Map.entry("FLOE_S3_ENDPOINT", "http://minio.example:9000"),
                Map.entry("FLOE_S3_REGION", "eu-west-1"),
                Map.entry("FLOE_S3_PATH_STYLE", "true"),
                Map.entry("FLOE_S3_ACCESS_KEY_ID", "AKIDEXAMPLE"),
                Map.entry("FLOE_S3_SECRET_ACCESS_KEY", "s3cr3t"),
                Map.entry("FLOE_MAINTENANCE", "false"),
                Map.entry("FLOE_COMPACTION_TARGET_BYTES", "8388608"),
                Map.entry("FLOE_COMPACTION_INTERVAL_MS", "5000"),
                Map.entry("FLOE_KEY_COMPACTION_INTERVAL_MS", "6000"),
                Map.entry("FLOE_KEY_COMPACTION_BUFFER_BYTES", "1048576"),
                Map.entry("FLOE_RETENTION_CHECK_INTERVAL_MS", "7000"),
                Map.entry("FLOE_OBJECT_DELETE_DELAY_MS", "0"),
                Map.entry("FLOE_ORPHAN_GRACE_MS", "900000"),
                Map.entry("FLOE_PRODUCER_ID_EXPIRATION_MS", "3600000"));

        AgentSettings settings = resolve(Map.of(), env, Map.of());

        MaintenanceConfig defaults = MaintenanceConfig.DEFAULTS;
        assertThat(settings)
                .isEqualTo(new AgentSettings(
                        new HostPort("10.0.0.1", 19092),
                        new HostPort("10.0.0.1", 0),
                        Path.of("/var/lib/floe"),
                        new AgentConfig(
                                7,
                                AgentConfig.defaults().agentId(), // the agent id is chosen at start
                                "prod-1",
                                "broker.example",
                                9092,
                                Duration.ofMillis(250),
                                4096,
                                AgentConfig.defaults().flushesInFlightMax(),
                                true,
                                0,
                                false,
                                6,
                                2_097_152,
                                Duration.ofSeconds(5),
                                AgentConfig.DEFAULT_TRANSACTION_MAX_TIMEOUT),
                        "postgresql://floe:pw@db.example:5432/floe",
                        "s3://floe-data/cluster-1",
                        new S3Options(
                                Optional.of(URI.create("http://minio.example:9000")),
                                "eu-west-1",
                                true,
                                Optional.of(new StaticCredentials("AKIDEXAMPLE", "s3cr3t"))),
                        false,
                        defaults.withCompaction(Duration.ofSeconds(5), 8L << 20, 2L << 20, defaults.compactionMinAge())
                                .withKeyCompaction(Duration.ofSeconds(6), 1 << 20)
                                .withRetentionInterval(Duration.ofSeconds(7))
                                .withCleanup(defaults.cleanupInterval(), Duration.ZERO, Duration.ofMinutes(15))
                                .withProducerIdExpiration(Duration.ofHours(1)),
                        true,
                        Duration.ofSeconds(15),
                        Duration.ofHours(1),
                        TableflowConfig.DEFAULT_UPSERT_INDEX_BYTES,
                        Duration.ofDays(1)));
    }

    @Test
    void everyNewSettingIsReadFromTheConfigFileAndFlagsWin() {
        Map<String, String> file = Map.ofEntries(
                Map.entry("metadata", "sqlite:/srv/floe/meta.db"),
                Map.entry("objects", "file:/srv/floe/objects"),
                Map.entry("s3-endpoint", "https://s3.example"),
                Map.entry("s3-region", "eu-central-1"),
                Map.entry("s3-path-style", "true"),
                Map.entry("s3-access-key-id", "file-id"),
                Map.entry("s3-secret-access-key", "file-secret"),
                Map.entry("maintenance", "false"),
                Map.entry("compaction-target-bytes", "1048576"),
                Map.entry("compaction-interval-ms", "2000"),
                Map.entry("key-compaction-interval-ms", "2500"),
                Map.entry("key-compaction-buffer-bytes", "2097152"),
                Map.entry("retention-check-interval-ms", "3000"),
                Map.entry("object-delete-delay-ms", "4000"),
                Map.entry("orphan-grace-ms", "300000"));

        AgentSettings fromFile = resolve(Map.of(), Map.of(), file);

        assertThat(fromFile.metadataUrl()).isEqualTo("sqlite:/srv/floe/meta.db");
        assertThat(fromFile.objectsUrl()).isEqualTo("file:/srv/floe/objects");
        assertThat(fromFile.s3())
                .isEqualTo(new S3Options(
                        Optional.of(URI.create("https://s3.example")),
                        "eu-central-1",
                        true,
                        Optional.of(new StaticCredentials("file-id", "file-secret"))));
        assertThat(fromFile.maintenance()).isFalse();
        assertThat(fromFile.maintenanceConfig().compactionTargetBytes()).isEqualTo(1_048_576);
        assertThat(fromFile.maintenanceConfig().compactionSmallObjectBytes()).isEqualTo(262_144);
        assertThat(fromFile.maintenanceConfig().compactionInterval()).hasMillis(2000);
        assertThat(fromFile.maintenanceConfig().keyCompactionInterval()).hasMillis(2500);
        assertThat(fromFile.maintenanceConfig().keyCompactionBufferBytes()).isEqualTo(2 << 20);
        assertThat(fromFile.maintenanceConfig().retentionInterval()).hasMillis(3000);
        assertThat(fromFile.maintenanceConfig().objectDeleteDelay()).hasMillis(4000);
        assertThat(fromFile.maintenanceConfig().orphanGrace()).hasMillis(300_000);

        Map<Setting, String> flags = new EnumMap<>(Setting.class);
        flags.put(Setting.METADATA, "postgresql://db.example/floe");
        flags.put(Setting.OBJECTS, "s3://bucket-1");
        flags.put(Setting.S3_REGION, "us-west-2");
        flags.put(Setting.S3_PATH_STYLE, "false");
        flags.put(Setting.S3_ACCESS_KEY_ID, "flag-id");
        flags.put(Setting.S3_SECRET_ACCESS_KEY, "flag-secret");
        flags.put(Setting.MAINTENANCE, "true");
        flags.put(Setting.COMPACTION_TARGET_BYTES, "2097152");
        flags.put(Setting.ORPHAN_GRACE_MS, "700000");
        AgentSettings fromFlags = resolve(flags, Map.of("FLOE_S3_REGION", "ap-south-1"), file);

        assertThat(fromFlags.metadataUrl()).isEqualTo("postgresql://db.example/floe");
        assertThat(fromFlags.objectsUrl()).isEqualTo("s3://bucket-1");
        assertThat(fromFlags.s3().endpoint()).contains(URI.create("https://s3.example")); // file
        assertThat(fromFlags.s3().region()).isEqualTo("us-west-2"); // flag over env
        assertThat(fromFlags.s3().pathStyleAccess()).isFalse();
        assertThat(fromFlags.s3().credentials()).contains(new StaticCredentials("flag-id", "flag-secret"));
        assertThat(fromFlags.maintenance()).isTrue();
        assertThat(fromFlags.maintenanceConfig().compactionTargetBytes()).isEqualTo(2_097_152);
        assertThat(fromFlags.maintenanceConfig().orphanGrace()).hasMillis(700_000);
        assertThat(fromFlags.maintenanceConfig().compactionInterval()).hasMillis(2000); // file
    }

    @Test
    void theEmbeddedStoresFollowTheDataDirectoryUnlessNamed() {
        AgentSettings settings =
                resolve(Map.of(Setting.DATA_DIR, "/data/floe", Setting.OBJECTS, "s3://bucket-1/p"), Map.of(), Map.of());

        assertThat(settings.metadataUrl()).isEqualTo("sqlite:/data/floe/metadata.db");
        assertThat(settings.objectsUrl()).isEqualTo("s3://bucket-1/p");
    }

    @Test
    void rejectsStoreUrlsThatNameNoUsableStore() {
        assertThatThrownBy(() -> resolveFlags(Setting.METADATA, "mysql://db/floe"))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessage("invalid value 'mysql://db/floe' for --metadata: unknown metadata store scheme 'mysql'"
                        + " in mysql://db/floe");
        assertThatThrownBy(() -> resolveFlags(Setting.METADATA, "file:/tmp/x"))
                .hasMessage("invalid value 'file:/tmp/x' for --metadata: file:/tmp/x names an object store, not a"
                        + " metadata store");
        assertThatThrownBy(() -> resolveFlags(Setting.OBJECTS, "sqlite:/tmp/x.db"))
                .hasMessageContaining("for --objects: sqlite:/tmp/x.db names a metadata store, not an object store");
        assertThatThrownBy(() -> resolveFlags(Setting.OBJECTS, "s3://Not_A_Bucket/x"))
                .hasMessageStartingWith("invalid value 's3://Not_A_Bucket/x' for --objects:")
                .hasMessageContaining("not");
        assertThatThrownBy(() -> resolveFlags(Setting.OBJECTS, "s3://bucket-1:9000/x"))
                .hasMessageContaining("is not an s3://bucket/prefix URL");
        assertThatThrownBy(() -> resolve(Map.of(), Map.of("FLOE_OBJECTS", "/just/a/path"), Map.of()))
                .hasMessage("invalid value '/just/a/path' for --objects (from environment variable FLOE_OBJECTS):"
                        + " '/just/a/path' is not a store URL such as file:/path or s3://BUCKET");
    }

    @Test
    void aBadPostgresqlUrlIsRejectedWithoutShowingItsPassword() {
        assertThatThrownBy(() -> resolveFlags(Setting.METADATA, "postgresql://floe:hunter2@:5432/floe"))
                .isInstanceOf(InvalidSettingException.class)
                .hasMessageStartingWith("invalid value 'postgresql://floe:****@:5432/floe' for --metadata:")
                .hasMessageContaining("names no host")
                .hasMessageNotContaining("hunter2");
        assertThatThrownBy(() -> resolveFlags(Setting.METADATA, "postgresql://floe:hunter2@db host/floe"))
                .hasMessageContaining("not a valid PostgreSQL URL")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    void rejectsInvalidS3Options() {
        assertThatThrownBy(() -> resolveFlags(Setting.S3_ENDPOINT, "ftp://files.example"))
                .hasMessage("invalid value 'ftp://files.example' for --s3-endpoint: expected an http:// or https://"
                        + " URL of scheme, host and port, such as http://127.0.0.1:9000");
        assertThatThrownBy(() -> resolveFlags(Setting.S3_ENDPOINT, "http://key:secret@minio:9000"))
                .hasMessageContaining("for --s3-endpoint: expected an http:// or https:// URL");
        assertThatThrownBy(() -> resolveFlags(Setting.S3_REGION, "us east 1"))
                .hasMessage("invalid value 'us east 1' for --s3-region: expected a region name such as us-east-1");
        assertThatThrownBy(() -> resolveFlags(Setting.S3_PATH_STYLE, "yes"))
                .hasMessage("invalid value 'yes' for --s3-path-style: expected true or false");
    }

    @Test
    void aStaticS3KeyNeedsBothHalves() {
        assertThatThrownBy(() -> resolveFlags(Setting.S3_ACCESS_KEY_ID, "AKIDEXAMPLE"))
                .hasMessage("--s3-access-key-id is set but --s3-secret-access-key is not: set both, or neither to"
                        + " use the AWS SDK's default credential chain");
        assertThatThrownBy(() -> resolve(Map.of(), Map.of("FLOE_S3_SECRET_ACCESS_KEY", "s3cr3t"), Map.of()))
                .hasMessage("--s3-secret-access-key is set (from environment variable FLOE_S3_SECRET_ACCESS_KEY)"
                        + " but --s3-access-key-id is not: set both, or neither to use the AWS SDK's default"
                        + " credential chain")
                .hasMessageNotContaining("s3cr3t");
    }

    @Test
    void theSecretKeyIsNeverShown() {
        assertThatThrownBy(() -> resolve(
                        Map.of(Setting.S3_ACCESS_KEY_ID, "AKIDEXAMPLE", Setting.S3_SECRET_ACCESS_KEY, "  "),
                        Map.of(),
                        Map.of()))
                .hasMessage("invalid value '****' for --s3-secret-access-key: expected a non-blank value");

        AgentSettings settings = resolve(
                Map.of(
                        Setting.S3_ACCESS_KEY_ID,
                        "AKIDEXAMPLE",
                        Setting.S3_SECRET_ACCESS_KEY,
                        "s3cr3t-v@lue",
                        Setting.METADATA,
                        "postgresql://floe:hunter2@db.example:5432/floe?password=hunter2"),
                Map.of(),
                Map.of());

        assertThat(settings.describe())
                .contains(
                        "s3-access-key-id=AKIDEXAMPLE",
                        "s3-secret-access-key=****",
                        "metadata=postgresql://floe:****@db.example:5432/floe?...")
                .doesNotContain("s3cr3t", "hunter2");
        assertThat(settings.toString()).doesNotContain("s3cr3t", "hunter2");
        assertThat(settings.s3().toString()).doesNotContain("s3cr3t");
    }

    @Test
    void rejectsMaintenanceValuesOutOfRange() {
        assertThatThrownBy(() -> resolveFlags(Setting.MAINTENANCE, "off"))
                .hasMessage("invalid value 'off' for --maintenance: expected true or false");
        assertThatThrownBy(() -> resolveFlags(Setting.COMPACTION_TARGET_BYTES, "100"))
                .hasMessage("invalid value '100' for --compaction-target-bytes: expected an integer from 1024 to"
                        + " 1073741824");
        assertThatThrownBy(() -> resolveFlags(Setting.COMPACTION_INTERVAL_MS, "0"))
                .hasMessageContaining("'0' for --compaction-interval-ms: expected an integer from 1000 to 86400000");
        assertThatThrownBy(() -> resolveFlags(Setting.KEY_COMPACTION_BUFFER_BYTES, "1024"))
                .hasMessage("invalid value '1024' for --key-compaction-buffer-bytes: expected an integer from 102400 to"
                        + " 1073741824");
        assertThatThrownBy(() -> resolveFlags(Setting.KEY_COMPACTION_INTERVAL_MS, "10"))
                .hasMessageContaining(
                        "'10' for --key-compaction-interval-ms: expected an integer from 1000 to 86400000");
        assertThatThrownBy(() -> resolveFlags(Setting.RETENTION_CHECK_INTERVAL_MS, "soon"))
                .hasMessageContaining("'soon' for --retention-check-interval-ms");
        assertThatThrownBy(() -> resolveFlags(Setting.OBJECT_DELETE_DELAY_MS, "-1"))
                .hasMessageContaining("'-1' for --object-delete-delay-ms: expected an integer from 0 to 604800000");
        assertThatThrownBy(() -> resolveFlags(Setting.PRODUCER_ID_EXPIRATION_MS, "120000"))
                .hasMessageStartingWith(
                        "invalid value '120000' for --producer-id-expiration-ms: expected an integer from"
                                + " 600000 to");
        assertThatThrownBy(() -> resolveFlags(Setting.ORPHAN_GRACE_MS, "60000"))
                .hasMessage("invalid value '60000' for --orphan-grace-ms: expected an integer from 300000 to"
                        + " 604800000");
    }

    @Test
    void theChangeTopicsHoldTimeoutIsReadAndBounded() {
        assertThat(resolveFlags(Setting.TABLEFLOW_CHANGES_HOLD_TIMEOUT_MS, "604800000")
                        .changesHoldTimeout())
                .isEqualTo(Duration.ofDays(7));
        assertThatThrownBy(() -> resolveFlags(Setting.TABLEFLOW_CHANGES_HOLD_TIMEOUT_MS, "1000"))
                .hasMessageStartingWith("invalid value '1000' for --tableflow-changes-hold-timeout-ms: expected an"
                        + " integer from 60000 to");
    }

    @Test
    void theTableflowStallTimeoutIsReadAndBounded() {
        assertThat(resolveFlags(Setting.TABLEFLOW_STALL_TIMEOUT_MS, "600000").tableflowStallTimeout())
                .isEqualTo(Duration.ofMinutes(10));
        assertThatThrownBy(() -> resolveFlags(Setting.TABLEFLOW_STALL_TIMEOUT_MS, "1000"))
                .hasMessageStartingWith("invalid value '1000' for --tableflow-stall-timeout-ms: expected an integer"
                        + " from 60000 to");
    }

    @Test
    void theUpsertIndexBudgetIsReadAndBounded() {
        assertThat(resolveFlags(Setting.TABLEFLOW_UPSERT_INDEX_BYTES, "1048576").tableflowUpsertIndexBytes())
                .isEqualTo(1L << 20);
        assertThatThrownBy(() -> resolveFlags(Setting.TABLEFLOW_UPSERT_INDEX_BYTES, "-1"))
                .hasMessageStartingWith(
                        "invalid value '-1' for --tableflow-upsert-index-bytes: expected an integer" + " from 0 to");
    }

    @Test
    void disablingMaintenanceKeepsItsSettings() {
        AgentSettings settings = resolve(Map.of(Setting.MAINTENANCE, "FALSE"), Map.of(), Map.of());

        assertThat(settings.maintenance()).isFalse();
        assertThat(settings.describe()).contains("maintenance=false", "orphan-grace-ms=600000");
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
                .hasMessageContaining("'-1' for --node-id")
                .hasMessageContaining("or allocated");
        assertThat(resolveFlags(Setting.NODE_ID, "Allocated").nodeId()).isEqualTo(NodeIds.ALLOCATED);
        assertThat(resolveFlags(Setting.NODE_ID, "0").nodeId()).isZero();
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

        AgentSettings settings =
                resolve(Map.of(Setting.LISTEN, "0.0.0.0:9092", Setting.ADVERTISE, "10.1.2.3:9092"), Map.of(), Map.of());
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
    void fetchMaxWaitBoundsTheLongPoll() {
        AgentSettings defaults = resolve(Map.of(), Map.of(), Map.of());
        assertThat(defaults.agentConfig("a").fetchMaxWait())
                .isEqualTo(AgentConfig.defaults().fetchMaxWait());
        assertThat(defaults.describe()).contains("fetch-max-wait-ms=30000");

        AgentSettings given = resolve(Map.of(), Map.of("FLOE_FETCH_MAX_WAIT_MS", "0"), Map.of());
        assertThat(given.agentConfig("a").fetchMaxWait()).isZero();
        assertThat(given.describe()).contains("fetch-max-wait-ms=0");
        assertThat(resolve(Map.of(), Map.of(), Map.of("fetch-max-wait-ms", "500"))
                        .agentConfig("a")
                        .fetchMaxWait())
                .hasMillis(500);

        assertThatThrownBy(() -> resolveFlags(Setting.FETCH_MAX_WAIT_MS, "-1"))
                .hasMessage("invalid value '-1' for --fetch-max-wait-ms: expected an integer from 0 to 2147483647");
    }

    /** A setting declaring an AgentConfig field sets that field, and the start-up line reads it back. */
    @Test
    void everyAgentConfigSettingSetsTheFieldTheStartUpLineShows() {
        AgentSettings defaults = resolve(Map.of(), Map.of(), Map.of());
        int declared = 0;
        for (Setting setting : Setting.values()) {
            if (setting.declaration().agent() == null) {
                continue;
            }
            declared++;
            String byDefault = setting.defaultValue()
                    .orElseGet(() -> ((Declaration.Default.ByObjectStore)
                                    setting.declaration().defaultValue())
                            .file());
            assertThat(defaults.describe()).as(setting.key()).contains(setting.key() + "=" + byDefault);
            Declaration.Kind kind = setting.declaration().kind();
            String other;
            if (kind instanceof Declaration.Kind.Int i) {
                other = Long.toString(i.min() == Long.parseLong(byDefault) ? i.min() + 1 : i.min());
            } else if (kind instanceof Declaration.Kind.Bool) {
                other = Boolean.toString(!Boolean.parseBoolean(byDefault));
            } else {
                other = byDefault + "-x";
            }
            AgentSettings given = resolveFlags(setting, other);
            assertThat(given.describe()).as(setting.key()).contains(setting.key() + "=" + other);
            assertThat(given.agentConfig("a")).as(setting.key()).isNotEqualTo(defaults.agentConfig("a"));
        }
        assertThat(declared).isGreaterThanOrEqualTo(9);
    }

    @Test
    void storesLiveInTheDataDirectory() {
        AgentSettings settings = resolveFlags(Setting.DATA_DIR, "/tmp/floe-x/");

        assertThat(settings.metadataUrl()).isEqualTo("sqlite:/tmp/floe-x/metadata.db");
        assertThat(settings.objectsUrl()).isEqualTo("file:/tmp/floe-x/objects");
        assertThat(settings.describe())
                .contains(
                        "data-dir=/tmp/floe-x",
                        "flush-interval-ms=20",
                        "listen=127.0.0.1:9092",
                        "metadata=sqlite:/tmp/floe-x/metadata.db",
                        "objects=file:/tmp/floe-x/objects",
                        "s3-secret-access-key=(default chain)",
                        "maintenance=true");
    }
}
