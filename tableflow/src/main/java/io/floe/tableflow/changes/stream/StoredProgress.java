package io.floe.tableflow.changes.stream;

import io.floe.core.topic.Topic;
import io.floe.tableflow.config.ChangesTopic;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where a stream's progress is read from after its producer's initialization: the group's committed
 * offsets; when the group has none of this stream, the change topic's last records ({@link TopicTail});
 * never a start from zero over changes already published, which halts instead. Offsets an operator set
 * are taken as they are, counting transactions on from the newest the topic holds.
 */
final class StoredProgress {

    private static final Logger LOGGER = LoggerFactory.getLogger(StoredProgress.class);

    private StoredProgress() {}

    static Progress read(StreamLink link, String group, Topic source, ChangesTopic target, StreamMetrics metrics) {
        String topic = source.name();
        Progress stored = Progress.of(link.committedOffsets(group), topic, source.id(), target.name());
        if (stored.origin() == Progress.Origin.STREAM) {
            return stored;
        }
        List<StreamLink.PartitionEnd> ends = link.ends(target.name());
        if (stored.origin() == Progress.Origin.OPERATOR) {
            return stored.countingFrom(TopicTail.newestTransaction(ends, source.id(), target.name()));
        }
        TopicTail.Found found = TopicTail.of(ends, source.id(), target.name());
        if (found instanceof TopicTail.Found.Resumed resumed) {
            metrics.progressRecovered();
            LOGGER.warn(
                    "change topic progress read back from the topic topic={} changeTopic={} group={} had none;"
                            + " resuming at {}",
                    topic,
                    target.name(),
                    group,
                    resumed.progress().next());
            return resumed.progress();
        }
        if (found instanceof TopicTail.Found.Unknown unknown) {
            throw new StreamHalted("the progress of change topic " + target.name() + " of topic " + topic + " is gone"
                    + " (group " + group + " has no offsets of it) and the topic's records do not prove where it"
                    + " stood: " + unknown.why() + ". It does not start over, which would publish the table's"
                    + " changes again. To go on, set the progress by hand: `floe groups reset-offsets " + group
                    + " --topic " + topic + " --to-offset N --execute` with the source offsets the topic holds the"
                    + " changes of (offsets the table's history no longer reaches start a snapshot of its current"
                    + " rows), or delete topic " + target.name() + " to publish the table into it afresh");
        }
        return stored; // nothing written, or only another stream's records: afresh
    }
}
