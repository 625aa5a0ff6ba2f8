package io.floe.tableflow;

import io.floe.tableflow.table.TableJobs;
import io.floe.testkit.time.ManualClock;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.apache.iceberg.Table;

/**
 * A topic's table job driven by hand: one poll a second of a stepped clock, until the table holds every
 * record committed to the topic.
 */
final class TablePolls {

    private TablePolls() {}

    /** One second passes, then the jobs poll once. */
    static void poll(ManualClock clock, TableJobs jobs) {
        clock.step(Duration.ofSeconds(1));
        jobs.poll();
    }

    /** Polls until {@code topic}'s table reaches the topic's stable ends; fails after {@code maxPolls}. */
    static void untilCaughtUp(TableflowHarness floe, String topic, ManualClock clock, TableJobs jobs, int maxPolls) {
        untilCaughtUp(floe, topic, clock, jobs, maxPolls, table -> true);
    }

    /** Polls until {@code topic}'s table reaches the topic's stable ends and {@code also} holds of it. */
    static void untilCaughtUp(
            TableflowHarness floe,
            String topic,
            ManualClock clock,
            TableJobs jobs,
            int maxPolls,
            Predicate<Table> also) {
        List<Long> ends = floe.stableEnds(topic);
        for (int polls = 0; polls < maxPolls; polls++) {
            if (floe.tables
                    .load(topic)
                    .filter(table -> TableflowHarness.reaches(table, ends) && also.test(table))
                    .isPresent()) {
                return;
            }
            poll(clock, jobs);
        }
        throw new AssertionError("the table of " + topic + " did not reach " + ends + " in " + maxPolls + " polls");
    }
}
