package io.floe.simulation;

import java.util.List;
import java.util.Map;

/** What one seed's run did and found. */
public record SimulationResult(
        long seed,
        long fingerprint,
        long steps,
        long virtualSeconds,
        int agents,
        int agentStarts,
        int valuesSent,
        int valuesAcknowledged,
        Map<String, Integer> transactions,
        long valuesExcusedByRetention,
        long indexChecks,
        long logReads,
        long tableRowsChecked,
        Map<String, Integer> faultsInjected,
        List<String> uncaught,
        Map<String, Long> longHorizon,
        Map<String, List<String>> violations) {

    public boolean passed() {
        return violations.isEmpty();
    }

    public int faultCount() {
        return faultsInjected.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** One line for the test log. */
    public String summary() {
        return String.format(
                "seed %d: %s, schedule %016x, %d steps, %d s virtual, %d agents (%d starts), %d values sent, %d acknowledged"
                        + " (%d of them removed by retention), %s%s%s%d faults %s%s",
                seed,
                passed() ? "ok" : "VIOLATED " + violations.keySet(),
                fingerprint,
                steps,
                virtualSeconds,
                agents,
                agentStarts,
                valuesSent,
                valuesAcknowledged,
                valuesExcusedByRetention,
                transactions.isEmpty() ? "" : "transactions " + transactions + ", ",
                tableRowsChecked > 0 ? tableRowsChecked + " table rows checked, " : "",
                longHorizon.isEmpty() ? "" : "long horizon " + longHorizon + ", ",
                faultCount(),
                faultsInjected,
                uncaught.isEmpty() ? "" : ", uncaught: " + uncaught.subList(0, Math.min(3, uncaught.size())));
    }
}
