package io.floe.cli.e2e.soak;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Whether the application counted every input record exactly once. The input holds, per key, the
 * sequence numbers its producer sent (1, 2, ... in the order of its partition); the application keeps
 * per key a count and the sequence number of the last record counted, and emits both as
 * {@code count:sequence} for each record it reads. Read committed, the output of a key must then be
 * exactly {@code 1:s1, 2:s2, ... n:sn} where {@code s1 ... sn} are the key's input sequence numbers in
 * order: a count repeated is a record processed twice (or an update emitted twice), a count skipped an
 * update lost, a count with the wrong sequence a record counted in another's place (one processed twice
 * and another never), a short output input not counted, a long one output from nothing.
 */
final class ExactlyOnceCheck {

    private static final int EXAMPLES_MAX = 5;

    /** What was wrong, by kind, with a few examples of each. */
    record Result(
            long inputs,
            long outputs,
            int keys,
            long repeated,
            long skipped,
            long wrongSequence,
            long missing,
            long extra,
            Set<String> keysWrong,
            Map<String, List<String>> examples) {

        boolean exactlyOnce() {
            return repeated + skipped + wrongSequence + missing + extra == 0;
        }

        String counts() {
            return "repeated=" + repeated + " skipped=" + skipped + " wrongSequence=" + wrongSequence + " missing="
                    + missing + " extra=" + extra + " keysWrong=" + keysWrong.size();
        }
    }

    private ExactlyOnceCheck() {}

    /**
     * @param inputs per key, the input sequence numbers in their partition's order
     * @param outputs per key, the committed output values ({@code count:sequence}) in their partition's order
     */
    static Result check(Map<String, List<Long>> inputs, Map<String, List<String>> outputs) {
        Tally tally = new Tally();
        Set<String> keys = new TreeSet<>(inputs.keySet());
        keys.addAll(outputs.keySet());
        for (String key : keys) {
            tally.key(key, inputs.getOrDefault(key, List.of()), outputs.getOrDefault(key, List.of()));
        }
        return new Result(
                inputs.values().stream().mapToLong(List::size).sum(),
                outputs.values().stream().mapToLong(List::size).sum(),
                keys.size(),
                tally.repeated,
                tally.skipped,
                tally.wrongSequence,
                tally.missing,
                tally.extra,
                tally.keysWrong,
                tally.examples);
    }

    /** The counts of one check, key by key. */
    private static final class Tally {
        long repeated;
        long skipped;
        long wrongSequence;
        long missing;
        long extra;
        final Set<String> keysWrong = new TreeSet<>();
        final Map<String, List<String>> examples = new LinkedHashMap<>();

        void key(String key, List<Long> input, List<String> output) {
            long last = 0;
            for (int i = 0; i < output.size(); i++) {
                String value = output.get(i);
                long count;
                long sequence;
                try {
                    int colon = value.indexOf(':');
                    count = Long.parseLong(value.substring(0, colon));
                    sequence = Long.parseLong(value.substring(colon + 1));
                } catch (RuntimeException e) {
                    wrong(key, "unreadable", "update " + i + " is '" + value + "'");
                    wrongSequence++;
                    continue;
                }
                if (count <= last) {
                    repeated++;
                    wrong(key, "repeated", "count " + count + " after " + last + " (update " + i + ")");
                } else if (count > last + 1) {
                    skipped += count - last - 1;
                    wrong(key, "skipped", "count " + count + " after " + last + " (update " + i + ")");
                } else if (count > input.size()) {
                    extra++;
                    wrong(key, "extra", "count " + count + " of " + input.size() + " inputs");
                } else if (input.get((int) count - 1) != sequence) {
                    wrongSequence++;
                    wrong(
                            key,
                            "wrongSequence",
                            "count " + count + " holds sequence " + sequence + ", input " + input.get((int) count - 1));
                }
                last = Math.max(last, count);
            }
            if (last < input.size()) {
                missing += input.size() - last;
                wrong(key, "missing", "last count " + last + " of " + input.size() + " inputs");
            }
        }

        private void wrong(String key, String kind, String what) {
            keysWrong.add(key);
            List<String> shown = examples.computeIfAbsent(kind, k -> new ArrayList<>());
            if (shown.size() < EXAMPLES_MAX) {
                shown.add(key + ": " + what);
            }
        }
    }
}
