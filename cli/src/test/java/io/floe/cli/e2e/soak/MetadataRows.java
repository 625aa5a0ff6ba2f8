package io.floe.cli.e2e.soak;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The metadata rows a topic's partitions hold in the agents' PostgreSQL database, counted in one read
 * (the schema of metadata-sql's {@code Migrations}): batch rows, transaction marker rows and producer
 * state rows per partition, beside its log start and next offset. A partition whose rows follow its
 * live data stays within its rows after a first minute plus one row per live key; one that keeps a row
 * per transaction ever run grows with time.
 */
final class MetadataRows {

    /** One partition's rows. */
    record PartitionRows(int partition, long batches, long markers, long producerStates, long logStart, long next) {}

    /** Which kind of row, for the check. */
    enum Kind {
        BATCHES,
        MARKERS,
        PRODUCER_STATE;

        long of(PartitionRows rows) {
            return switch (this) {
                case BATCHES -> rows.batches();
                case MARKERS -> rows.markers();
                case PRODUCER_STATE -> rows.producerStates();
            };
        }

        String column() {
            return switch (this) {
                case BATCHES -> "batches";
                case MARKERS -> "txn_markers";
                case PRODUCER_STATE -> "producer_state";
            };
        }
    }

    /** A partition and kind whose rows at the end exceed the baseline's plus the partition's live keys. */
    record Excess(int partition, Kind kind, long baseline, long liveKeys, long end) {
        @Override
        public String toString() {
            return kind.column() + "[" + partition + "] " + end + " > " + baseline + " + " + liveKeys;
        }
    }

    private static final String COUNT = """
            SELECT p.partition_index, p.log_start_offset, p.next_offset,
                   (SELECT count(*) FROM batches b WHERE b.partition_id = p.id),
                   (SELECT count(*) FROM txn_markers m WHERE m.partition_id = p.id),
                   (SELECT count(*) FROM producer_state s WHERE s.partition_id = p.id)
            FROM partitions p JOIN topics t ON t.id = p.topic_id
            WHERE t.name = ?
            ORDER BY p.partition_index""";

    private final String jdbcUrl;
    private final String user;
    private final String password;

    MetadataRows(String jdbcUrl, String user, String password) {
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
    }

    /** The rows of every partition of {@code topic}, in one statement (so one snapshot); empty if none. */
    List<PartitionRows> count(String topic) throws SQLException {
        List<PartitionRows> rows = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection(jdbcUrl, user, password);
                PreparedStatement statement = connection.prepareStatement(COUNT)) {
            statement.setString(1, topic);
            try (ResultSet result = statement.executeQuery()) {
                while (result.next()) {
                    rows.add(new PartitionRows(
                            result.getInt(1),
                            result.getLong(4),
                            result.getLong(5),
                            result.getLong(6),
                            result.getLong(2),
                            result.getLong(3)));
                }
            }
        }
        return rows;
    }

    /**
     * Every partition and kind whose rows at {@code end} exceed those at {@code baseline} plus the
     * partition's live keys; a partition missing from the baseline counts as having had none.
     */
    static List<Excess> excess(List<PartitionRows> baseline, List<PartitionRows> end, Map<Integer, Long> liveKeys) {
        List<Excess> excess = new ArrayList<>();
        for (PartitionRows last : end) {
            PartitionRows first = baseline.stream()
                    .filter(rows -> rows.partition() == last.partition())
                    .findFirst()
                    .orElse(new PartitionRows(last.partition(), 0, 0, 0, 0, 0));
            long live = liveKeys.getOrDefault(last.partition(), 0L);
            for (Kind kind : Kind.values()) {
                if (kind.of(last) > kind.of(first) + live) {
                    excess.add(new Excess(last.partition(), kind, kind.of(first), live, kind.of(last)));
                }
            }
        }
        return excess;
    }

    static long total(List<PartitionRows> rows, Kind kind) {
        return rows.stream().mapToLong(kind::of).sum();
    }
}
