package io.floe.cli.e2e.faults;

import io.floe.cli.e2e.faults.FaultRunChecker.Observation;
import io.floe.cli.e2e.faults.ReadChecks.Position;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks the history of the transactional part of a fault run: what each transactional producer
 * knows of its transactions' outcomes, what a read_committed consumer group polled, and what fresh
 * consumers read from the beginning of every partition after the faults healed (read_committed
 * reads, and one read_uncommitted read). Values are unique, {@code t<producer>-<transaction>-<index>},
 * sent in that order. It counts:
 * <ul>
 *   <li><b>abortedReads</b>: records of an aborted transaction (its abortTransaction returned, or it
 *       was abandoned before its commit was sent) that a read_committed poll or read returned;</li>
 *   <li><b>committedMissing</b>: records of a transaction whose commitTransaction returned that a
 *       final read (of either isolation) lacks;</li>
 *   <li><b>duplicated</b>: values seen at more than one partition and offset, in any poll or read;</li>
 *   <li><b>partial</b>: transactions of unknown outcome (the commit was sent, but did not return)
 *       of which a read_committed final read has some records but not all, or that two such reads
 *       disagree on; the others are excused, counted as <b>unknownCommitted</b> (all visible) or
 *       <b>unknownAborted</b> (none visible);</li>
 *   <li><b>misordered</b>: records of a final read at an offset above a later-sent record of the same
 *       producer in the same partition (a producer runs one transaction at a time, so this also finds
 *       a transaction's records split by another of its transactions);</li>
 *   <li><b>changed</b>: partition offsets seen with different values by two polls or reads;</li>
 *   <li><b>neverPolled</b>: records of committed transactions the group never polled.</li>
 * </ul>
 * All of those must be 0. <b>abortedInLog</b> counts the aborted records the read_uncommitted read
 * saw: above 0, the read_committed reads had aborted records to leave out.
 */
final class TransactionalRunChecker {

    private static final int EXAMPLES = 5;
    private static final Pattern VALUE = Pattern.compile("t(\\d+)-(\\d+)-(\\d+)");

    /** What the producer knows of how a transaction ended. */
    enum Outcome {
        /** commitTransaction returned. */
        COMMITTED,
        /** abortTransaction returned, or the transaction was given up before its commit was sent. */
        ABORTED,
        /** The commit was sent and did not return: it may have been applied or not. */
        UNKNOWN
    }

    /** One record a transaction sent, and the partition it named. */
    record Sent(String value, int partition) {}

    /** A transaction: its id ({@code t<producer>-<transaction>}), outcome, records, and why it ended so. */
    record Transaction(String id, Outcome outcome, List<Sent> records, String reason) {}

    /**
     * A run's history: the transactions, the read_committed group's polls, the read_committed final
     * reads, and the read_uncommitted final read.
     */
    record History(
            List<Transaction> transactions,
            List<Observation> polls,
            List<List<Observation>> committedReads,
            List<Observation> uncommittedRead) {}

    /** The counts, and a few examples of each violation and of each excuse. */
    record Result(
            int committed,
            int aborted,
            int unknown,
            int committedRecords,
            int abortedInLog,
            int unknownCommitted,
            int unknownAborted,
            int abortedReads,
            int committedMissing,
            int duplicated,
            int partial,
            int misordered,
            int changed,
            int neverPolled,
            Map<String, List<String>> examples) {

        boolean valid() {
            return abortedReads == 0
                    && committedMissing == 0
                    && duplicated == 0
                    && partial == 0
                    && misordered == 0
                    && changed == 0
                    && neverPolled == 0;
        }

        String counts() {
            return "committed=" + committed + " aborted=" + aborted + " unknown=" + unknown + " committedRecords="
                    + committedRecords + " abortedInLog=" + abortedInLog + " unknownCommitted=" + unknownCommitted
                    + " unknownAborted=" + unknownAborted + " abortedReads=" + abortedReads + " committedMissing="
                    + committedMissing + " duplicated=" + duplicated + " partial=" + partial + " misordered="
                    + misordered + " changed=" + changed + " neverPolled=" + neverPolled;
        }
    }

    private final Map<String, List<String>> examples = new LinkedHashMap<>();

    private TransactionalRunChecker() {}

    static Result check(History history) {
        return new TransactionalRunChecker().run(history);
    }

    private Result run(History history) {
        List<Transaction> txns = history.transactions();
        List<List<Observation>> allReads = new ArrayList<>(history.committedReads());
        allReads.add(history.uncommittedRead());
        List<Observation> committedView = new ArrayList<>(history.polls());
        history.committedReads().forEach(committedView::addAll);
        List<Observation> everything = new ArrayList<>(committedView);
        everything.addAll(history.uncommittedRead());
        int[] unknown = unknownVisibility(txns, history.committedReads());
        return new Result(
                count(txns, Outcome.COMMITTED),
                count(txns, Outcome.ABORTED),
                count(txns, Outcome.UNKNOWN),
                values(txns, Outcome.COMMITTED).size(),
                abortedInLog(txns, history.uncommittedRead()),
                unknown[0],
                unknown[1],
                abortedReads(txns, committedView),
                committedMissing(txns, allReads),
                ReadChecks.duplicated(everything, this::example),
                unknown[2],
                misordered(allReads),
                ReadChecks.changed(everything, this::example),
                neverPolled(txns, history.polls()),
                examples);
    }

    private int abortedReads(List<Transaction> txns, List<Observation> committedView) {
        Set<String> aborted = values(txns, Outcome.ABORTED);
        Set<String> seen = new LinkedHashSet<>();
        for (Observation o : committedView) {
            if (aborted.contains(o.value()) && seen.add(o.value())) {
                example("abortedReads", o + " is of " + transactionOf(txns, o.value()));
            }
        }
        return seen.size();
    }

    private int abortedInLog(List<Transaction> txns, List<Observation> uncommittedRead) {
        Set<String> aborted = values(txns, Outcome.ABORTED);
        return (int) uncommittedRead.stream()
                .map(Observation::value)
                .filter(aborted::contains)
                .distinct()
                .count();
    }

    private int committedMissing(List<Transaction> txns, List<List<Observation>> logReads) {
        List<Set<Sent>> reads =
                logReads.stream().map(TransactionalRunChecker::contents).toList();
        int missing = 0;
        for (Transaction txn : txns) {
            if (txn.outcome() != Outcome.COMMITTED) {
                continue;
            }
            for (Sent sent : txn.records()) {
                for (int read = 0; read < reads.size(); read++) {
                    if (!reads.get(read).contains(sent)) {
                        missing++;
                        example("committedMissing", sent + " of " + txn.id() + " not in final read " + read);
                        break;
                    }
                }
            }
        }
        return missing;
    }

    /** For unknown outcomes: [all visible, none visible, partially visible or disagreeing reads]. */
    private int[] unknownVisibility(List<Transaction> txns, List<List<Observation>> committedReads) {
        int[] counts = new int[3];
        List<Set<Sent>> reads =
                committedReads.stream().map(TransactionalRunChecker::contents).toList();
        for (Transaction txn : txns) {
            if (txn.outcome() != Outcome.UNKNOWN || txn.records().isEmpty()) {
                continue;
            }
            Set<Long> visible = new HashSet<>();
            for (Set<Sent> read : reads) {
                visible.add(txn.records().stream().filter(read::contains).count());
            }
            long all = txn.records().size();
            if (visible.equals(Set.of(all))) {
                counts[0]++;
                example("unknownCommitted", txn.id() + ": " + txn.reason());
            } else if (visible.equals(Set.of(0L))) {
                counts[1]++;
                example("unknownAborted", txn.id() + ": " + txn.reason());
            } else {
                counts[2]++;
                example("partial", txn + ": records visible per read_committed read " + visible + " of " + all);
            }
        }
        return counts;
    }

    private int misordered(List<List<Observation>> reads) {
        Set<Position> misordered = new HashSet<>();
        for (List<Observation> read : reads) {
            TreeMap<Position, String> log = new TreeMap<>();
            read.forEach(o -> log.put(new Position(o.partition(), o.offset()), o.value()));
            Map<String, long[]> last = new LinkedHashMap<>(); // by partition and producer: [transaction, index]
            log.forEach((position, value) -> {
                Matcher sent = VALUE.matcher(value);
                if (!sent.matches()) {
                    return;
                }
                long[] now = {Long.parseLong(sent.group(2)), Long.parseLong(sent.group(3))};
                long[] before = last.put(position.partition() + "/" + sent.group(1), now);
                boolean later = before == null || now[0] > before[0] || (now[0] == before[0] && now[1] > before[1]);
                if (!later && misordered.add(position)) {
                    example(
                            "misordered",
                            "partition " + position.partition() + " offset " + position.offset() + ": " + value
                                    + " after t" + sent.group(1) + "-" + before[0] + "-" + before[1]);
                }
            });
        }
        return misordered.size();
    }

    private int neverPolled(List<Transaction> txns, List<Observation> polls) {
        Set<String> polled = new HashSet<>();
        polls.forEach(poll -> polled.add(poll.value()));
        int never = 0;
        for (String value : values(txns, Outcome.COMMITTED)) {
            if (!polled.contains(value)) {
                never++;
                example("neverPolled", value);
            }
        }
        return never;
    }

    /** The values of a read, each with its partition. */
    private static Set<Sent> contents(List<Observation> read) {
        Set<Sent> contents = new HashSet<>();
        read.forEach(o -> contents.add(new Sent(o.value(), o.partition())));
        return contents;
    }

    private static int count(List<Transaction> txns, Outcome outcome) {
        return (int) txns.stream().filter(t -> t.outcome() == outcome).count();
    }

    private static Set<String> values(List<Transaction> txns, Outcome outcome) {
        Set<String> values = new LinkedHashSet<>();
        txns.stream()
                .filter(t -> t.outcome() == outcome)
                .forEach(t -> t.records().forEach(sent -> values.add(sent.value())));
        return values;
    }

    private static String transactionOf(List<Transaction> txns, String value) {
        return txns.stream()
                .filter(t -> t.records().stream().anyMatch(sent -> sent.value().equals(value)))
                .findFirst()
                .map(Transaction::toString)
                .orElse("no transaction");
    }

    private void example(String kind, String what) {
        List<String> shown = examples.computeIfAbsent(kind, k -> new ArrayList<>());
        if (shown.size() < EXAMPLES) {
            shown.add(what);
        }
    }
}
