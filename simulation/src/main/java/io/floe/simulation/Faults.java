package io.floe.simulation;

import java.util.Map;
import java.util.TreeMap;

/**
 * What can go wrong at a store call, how often (drawn from the seed, so some runs are calm and some
 * are storms), and the count of each fault injected. A call may fail before it applies, apply and
 * then fail ("applied, but the caller saw a timeout"), kill its process before or after applying, or
 * take long (other tasks run meanwhile). An object-store PUT may also be applied late: the caller saw
 * a timeout, and the object appears afterwards, maybe after its writer died.
 */
final class Faults {

    /** Per-call probabilities. */
    record Rates(
            double failBefore,
            double failAfter,
            double crashBefore,
            double crashAfter,
            double slow,
            double delayedPut) {

        static final Rates NONE = new Rates(0, 0, 0, 0, 0, 0);

        static Rates draw(World world) {
            double intensity =
                    world.random().nextDouble() < 0.2 ? 0.0 : world.random().nextDouble();
            return new Rates(
                    0.08 * intensity,
                    0.05 * intensity,
                    0.01 * intensity,
                    0.01 * intensity,
                    0.15 * intensity,
                    0.03 * intensity);
        }
    }

    private final World world;
    private final Map<String, Integer> injected = new TreeMap<>();
    private final Rates drawn;
    private Rates rates;
    private boolean longCalls = true;

    Faults(World world, Rates rates) {
        this.world = world;
        this.drawn = rates;
        this.rates = rates;
    }

    /**
     * Faults again, at {@code share} of the rates drawn for the run (a burst after a heal), without the
     * slow calls of 30 s and more: a burst stays a burst.
     */
    void resume(double share) {
        longCalls = false;
        rates = new Rates(
                drawn.failBefore() * share,
                drawn.failAfter() * share,
                drawn.crashBefore() * share,
                drawn.crashAfter() * share,
                drawn.slow() * share,
                drawn.delayedPut() * share);
    }

    /** From now on no faults: the heal phase. */
    void heal() {
        rates = Rates.NONE;
    }

    Map<String, Integer> injected() {
        return injected;
    }

    void count(String kind) {
        injected.merge(kind, 1, Integer::sum);
    }

    boolean failBefore() {
        return hit(rates.failBefore(), "error before applying");
    }

    boolean failAfter() {
        return hit(rates.failAfter(), "error after applying");
    }

    boolean crashBefore() {
        return hit(rates.crashBefore(), "crash in a store call");
    }

    boolean crashAfter() {
        return hit(rates.crashAfter(), "crash after a store call applied");
    }

    boolean delayedPut() {
        return hit(rates.delayedPut(), "PUT applied late");
    }

    /** The virtual duration of a store call: usually short, sometimes seconds, rarely minutes. */
    long latencyNanos() {
        if (world.chance(rates.slow())) {
            count("slow call");
            return world.chance(0.1) && longCalls
                    ? world.between(30_000_000_000L, 150_000_000_000L)
                    : world.between(200_000_000L, 5_000_000_000L);
        }
        return world.between(100_000L, 3_000_000L);
    }

    private boolean hit(double probability, String kind) {
        if (world.chance(probability)) {
            count(kind);
            return true;
        }
        return false;
    }
}
