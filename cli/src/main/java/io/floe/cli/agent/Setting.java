package io.floe.cli.agent;

import io.floe.agent.AgentConfig;
import io.floe.objectstore.s3.S3ObjectStoreConfig;
import java.util.Arrays;
import java.util.Optional;

/**
 * The settings of {@code floe agent}. Each has a long flag ({@code --flush-interval-ms}), an
 * environment variable ({@code FLOE_FLUSH_INTERVAL_MS}) and a config-file key
 * ({@code flush-interval-ms}), all derived from its key. A secret setting's value is never shown:
 * not in the start-up log line, not in an error message.
 */
enum Setting {
    LISTEN("listen", Defaults.LISTEN),
    ADVERTISE("advertise", null),
    HTTP_LISTEN("http-listen", Defaults.HTTP_LISTEN),
    DATA_DIR("data-dir", Defaults.DATA_DIR),
    FLUSH_INTERVAL_MS("flush-interval-ms", null),
    FLUSH_MAX_BYTES("flush-max-bytes", null),
    FLUSH_WHEN_PRODUCERS_WAIT("flush-when-producers-wait", null),
    CACHE_BYTES("cache-bytes", Defaults.CACHE_BYTES),
    NODE_ID("node-id", Defaults.NODE_ID),
    CLUSTER_ID("cluster-id", Defaults.CLUSTER_ID),
    AUTO_CREATE_TOPICS("auto-create-topics", Defaults.AUTO_CREATE_TOPICS),
    DEFAULT_PARTITIONS("default-partitions", Defaults.DEFAULT_PARTITIONS),
    MAX_MESSAGE_BYTES("max-message-bytes", Defaults.MAX_MESSAGE_BYTES),
    METADATA("metadata", null),
    OBJECTS("objects", null),
    S3_ENDPOINT("s3-endpoint", null),
    S3_REGION("s3-region", Defaults.S3_REGION),
    S3_PATH_STYLE("s3-path-style", Defaults.S3_PATH_STYLE),
    S3_ACCESS_KEY_ID("s3-access-key-id", null),
    S3_SECRET_ACCESS_KEY("s3-secret-access-key", null, true),
    MAINTENANCE("maintenance", Defaults.MAINTENANCE),
    COMPACTION_TARGET_BYTES("compaction-target-bytes", Defaults.COMPACTION_TARGET_BYTES),
    COMPACTION_INTERVAL_MS("compaction-interval-ms", Defaults.COMPACTION_INTERVAL_MS),
    KEY_COMPACTION_INTERVAL_MS("key-compaction-interval-ms", Defaults.KEY_COMPACTION_INTERVAL_MS),
    KEY_COMPACTION_BUFFER_BYTES("key-compaction-buffer-bytes", Defaults.KEY_COMPACTION_BUFFER_BYTES),
    RETENTION_CHECK_INTERVAL_MS("retention-check-interval-ms", Defaults.RETENTION_CHECK_INTERVAL_MS),
    OBJECT_DELETE_DELAY_MS("object-delete-delay-ms", Defaults.OBJECT_DELETE_DELAY_MS),
    ORPHAN_GRACE_MS("orphan-grace-ms", Defaults.ORPHAN_GRACE_MS),
    PRODUCER_ID_EXPIRATION_MS("producer-id-expiration-ms", Defaults.PRODUCER_ID_EXPIRATION_MS),
    TABLEFLOW("tableflow", Defaults.TABLEFLOW),
    TABLEFLOW_LEASE_MS("tableflow-lease-ms", Defaults.TABLEFLOW_LEASE_MS),
    TABLEFLOW_STALL_TIMEOUT_MS("tableflow-stall-timeout-ms", Defaults.TABLEFLOW_STALL_TIMEOUT_MS);

    /** Default values as constants, so the option descriptions in {@link AgentCommand} can show them. */
    static final class Defaults {
        static final String LISTEN = "127.0.0.1:9092";
        static final String HTTP_LISTEN = "127.0.0.1:9644";
        static final String DATA_DIR = "./floe-data";
        /** Local objects cost nothing per write; on S3 every flush is a PUT, 4 per second at most by default. */
        static final String FLUSH_INTERVAL_MS = "20 for file: objects, 250 for s3:";
        static final int FLUSH_INTERVAL_MS_FILE = 20;
        static final int FLUSH_INTERVAL_MS_S3 = 250;
        /**
         * On S3 a flush sealed by size is a PUT too: 32 MiB keeps an agent at 4 PUTs per second up to
         * 128 MiB/s of ingest (8 MiB would pass 4 at 32 MiB/s), for a produce buffer of up to 4 flushes.
         */
        static final String FLUSH_MAX_BYTES = "8388608 (8 MiB) for file: objects, 33554432 (32 MiB) for s3:";
        static final long FLUSH_MAX_BYTES_FILE = 8L << 20;
        static final long FLUSH_MAX_BYTES_S3 = 32L << 20;
        /** An early flush is one more object: free on local files, a PUT on S3. */
        static final String FLUSH_WHEN_PRODUCERS_WAIT = "true for file: objects, false for s3:";
        static final String CACHE_BYTES = "268435456";
        static final String NODE_ID = "allocated";
        static final String CLUSTER_ID = "floe-cluster";
        static final String AUTO_CREATE_TOPICS = "true";
        static final String DEFAULT_PARTITIONS = "1";
        static final String MAX_MESSAGE_BYTES = "" + AgentConfig.DEFAULT_MAX_MESSAGE_BYTES;
        static final String S3_REGION = S3ObjectStoreConfig.DEFAULT_REGION;
        static final String S3_PATH_STYLE = "false";
        static final String MAINTENANCE = "true";
        static final String COMPACTION_TARGET_BYTES = "67108864";
        static final String COMPACTION_INTERVAL_MS = "30000";
        static final String KEY_COMPACTION_INTERVAL_MS = "30000";
        static final String KEY_COMPACTION_BUFFER_BYTES = "16777216";
        static final String RETENTION_CHECK_INTERVAL_MS = "60000";
        static final String OBJECT_DELETE_DELAY_MS = "60000";
        static final String ORPHAN_GRACE_MS = "600000";
        static final String PRODUCER_ID_EXPIRATION_MS = "86400000";
        static final String TABLEFLOW = "true";
        static final String TABLEFLOW_LEASE_MS = "15000";
        /** TableflowConfig.DEFAULT_STALL_TIMEOUT, as a constant the option description can show. */
        static final String TABLEFLOW_STALL_TIMEOUT_MS = "3600000";

        private Defaults() {}
    }

    private final String key;
    private final String defaultValue;
    private final boolean secret;

    Setting(String key, String defaultValue) {
        this(key, defaultValue, false);
    }

    Setting(String key, String defaultValue, boolean secret) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.secret = secret;
    }

    /** The config-file key, e.g. {@code flush-interval-ms}. */
    String key() {
        return key;
    }

    /** The command-line flag, e.g. {@code --flush-interval-ms}. */
    String flag() {
        return "--" + key;
    }

    /** The environment variable, e.g. {@code FLOE_FLUSH_INTERVAL_MS}. */
    String envVar() {
        return "FLOE_" + name();
    }

    /** The built-in default; empty when the default is derived from another setting. */
    Optional<String> defaultValue() {
        return Optional.ofNullable(defaultValue);
    }

    /** True for a credential, whose value is shown as {@code ****}. */
    boolean secret() {
        return secret;
    }

    static Optional<Setting> byKey(String key) {
        return Arrays.stream(values()).filter(setting -> setting.key.equals(key)).findFirst();
    }
}
