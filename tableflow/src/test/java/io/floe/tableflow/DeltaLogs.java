package io.floe.tableflow;

import io.floe.core.object.ObjectInfo;
import io.floe.tableflow.delta.DeltaMirror;
import io.floe.tableflow.delta.DeltaReads;
import java.nio.charset.StandardCharsets;

/** The Delta log of a topic's table, as the ITs inspect it: where it is, its commits' text, what it mirrors. */
final class DeltaLogs {

    private DeltaLogs() {}

    /** The table's location, as the object store names it. */
    static String location(TableflowHarness floe, String topic) {
        String location = floe.tables.load(topic).orElseThrow().location();
        return floe.io.locations().location(floe.io.locations().key(location));
    }

    /** The object key prefix of the table's Delta log. */
    static String prefix(TableflowHarness floe, String topic) {
        return floe.io.locations().keyPrefix(location(floe, topic) + "/" + DeltaMirror.LOG_DIRECTORY);
    }

    /** Every JSON commit of the log, concatenated. */
    static String commitText(TableflowHarness floe, String topic) {
        StringBuilder text = new StringBuilder();
        for (ObjectInfo info : floe.objects.list(prefix(floe, topic))) {
            if (info.key().value().endsWith(".json")) {
                text.append(StandardCharsets.UTF_8.decode(floe.objects.get(info.key())));
            }
        }
        return text.toString();
    }

    /** The Iceberg sequence number the log mirrors; -1 before its first commit. */
    static long mirroredSequence(TableflowHarness floe, String topic) {
        return DeltaReads.transactionVersion(
                        floe.objects, floe.io.locations(), location(floe, topic), DeltaMirror.ICEBERG_TRANSACTION)
                .orElse(-1L);
    }
}
