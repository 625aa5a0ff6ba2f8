package io.floe.cli.e2e.soak;

import static org.assertj.core.api.Assertions.assertThat;

import io.floe.cli.e2e.soak.SoakSchedule.Kind;
import io.floe.cli.e2e.soak.SoakSchedule.Step;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class SoakScheduleTest {

    private static SoakOptions options(String... args) {
        return SoakOptions.parse(args, 42);
    }

    @Test
    void aSeedPlansTheSameStepsEveryTime() {
        assertThat(SoakSchedule.plan(options("--seed", "7"))).isEqualTo(SoakSchedule.plan(options("--seed", "7")));
        assertThat(SoakSchedule.plan(options("--seed", "7")).steps())
                .isNotEqualTo(SoakSchedule.plan(options("--seed", "8")).steps());
    }

    @Test
    void stepsComeAfterTheBaselineOneAtATimeAndEndWithinTheRun() {
        SoakOptions options = options("--seed", "3");
        List<Step> steps = SoakSchedule.plan(options).steps();

        assertThat(steps).isNotEmpty();
        assertThat(steps.get(0).at()).isGreaterThan(options.baselineAt());
        for (int i = 1; i < steps.size(); i++) {
            Step before = steps.get(i - 1);
            assertThat(steps.get(i).at())
                    .isGreaterThanOrEqualTo(before.at()
                            .plus(before.length())
                            .plus(options.faultGap().min()));
        }
        Step last = steps.get(steps.size() - 1);
        assertThat(last.at().plus(last.length())).isLessThanOrEqualTo(options.run());
    }

    @Test
    void theDefaultTenMinutesPauseAndKillAndPauseOnceBeyondTheJobLeases() {
        SoakSchedule schedule = SoakSchedule.plan(options("--seed", "11"));

        assertThat(schedule.count(Kind.PAUSE)).isGreaterThanOrEqualTo(2);
        assertThat(schedule.count(Kind.KILL)).isGreaterThanOrEqualTo(2);
        assertThat(schedule.steps().stream().filter(step -> step.length().equals(Duration.ofSeconds(135))))
                .singleElement()
                .satisfies(step -> assertThat(step.kind()).isEqualTo(Kind.PAUSE));
        assertThat(schedule.steps().stream()
                        .filter(step -> step.kind() == Kind.PAUSE)
                        .map(Step::length))
                .allSatisfy(length -> assertThat(length).isGreaterThan(SoakOptions.LEASE));
    }

    @Test
    void aRunTooShortForTheLongPauseGoesWithoutIt() {
        SoakSchedule schedule = SoakSchedule.plan(options("--seconds", "180", "--seed", "5"));

        assertThat(schedule.steps())
                .isNotEmpty()
                .allSatisfy(step -> assertThat(step.length()).isLessThan(Duration.ofSeconds(135)));
    }

    @Test
    void optionsReplayAsTheyWereGiven() {
        SoakOptions given = options("--seconds", "300", "--seed", "9", "--keys", "30", "--short-pause", "8-9");

        assertThat(SoakOptions.parse(given.replay().split(" "), 1).replay()).isEqualTo(given.replay());
    }
}
