package io.floe.tableflow.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The agent's key index memory, shared fairly by its tables and never exceeded. */
class KeyIndexBudgetTest {

    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final KeyIndexBudget budget = new KeyIndexBudget(1000, meters);
    private final List<String> evicted = new ArrayList<>();

    @Test
    void aTableMayUseWhatIsFreeBeyondItsShareUntilAnotherNeedsItsOwn() {
        KeyIndexBudget.Share big = share("big");
        assertThat(big.roomFor(900)).as("alone: the whole budget is free").isEqualTo(1000);
        big.hold(900);
        KeyIndexBudget.Share small = share("small");

        assertThat(small.roomFor(300)).as("within its half: the big one goes").isEqualTo(1000);
        assertThat(evicted).containsExactly("big");
        small.hold(300);
        assertThat(budget.held()).isEqualTo(300);
        assertThat(big.roomFor(900)).as("beyond its half, and only 700 free").isZero();
        assertThat(big.roomFor(600)).as("within its half").isEqualTo(700);
    }

    @Test
    void indexesAboveTheirFairShareMakeRoomLargestFirst() {
        KeyIndexBudget.Share a = share("a");
        KeyIndexBudget.Share b = share("b");
        a.roomFor(500);
        a.hold(500);
        b.roomFor(400);
        b.hold(400);
        KeyIndexBudget.Share c = share("c");

        assertThat(c.roomFor(300))
                .as("within its third (333): the largest above theirs goes")
                .isEqualTo(600);
        assertThat(evicted).as("b is above its third too, but room was made").containsExactly("a");
        c.hold(300);
        assertThat(b.grow(450)).as("b grows past its third while it is free").isTrue();
        assertThat(budget.held()).isEqualTo(750);
        assertThat(a.roomFor(400)).as("beyond its third, 250 free").isZero();
        assertThat(a.roomFor(300))
                .as("within its third: b, above its own, goes")
                .isEqualTo(700);
        assertThat(evicted).containsExactly("a", "b");
    }

    @Test
    void aGrowingIndexBeyondWhatIsFreeAndItsShareIsDropped() {
        KeyIndexBudget.Share a = share("a");
        KeyIndexBudget.Share b = share("b");
        a.roomFor(400);
        a.hold(400);
        b.roomFor(400);
        b.hold(400);

        assertThat(a.grow(500))
                .as("its half, taken from nobody: b is within its own")
                .isTrue();
        assertThat(a.grow(700)).as("past its half, 600 free").isFalse();
        assertThat(budget.held()).isEqualTo(400);
        assertThat(evicted).isEmpty();
    }

    @Test
    void aClosedShareGivesItsMemoryBackAndCountsNoMore() {
        KeyIndexBudget.Share a = share("a");
        KeyIndexBudget.Share b = share("b");
        a.roomFor(600);
        a.hold(600);
        b.roomFor(300);
        assertThat(budget.fairShare()).isEqualTo(500);
        b.close();

        assertThat(budget.fairShare()).isEqualTo(1000);
        a.close();
        assertThat(budget.held()).isZero();
        assertThat(meters.find("floe.tableflow.upsert.index.bytes").gauge().value())
                .isZero();
    }

    private KeyIndexBudget.Share share(String table) {
        return budget.open(table, () -> evicted.add(table));
    }
}
