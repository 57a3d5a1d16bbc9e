package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class RunsTest {
  /** Small and quick: 200 clients, 60 s, a pause at 20 s, two policies. */
  private static final Scenario SMALL = Scenario.of(Map.of("clients", 200, "duration", "60s", "faults",
      "pause@20s+10s", "policies", "fixed,full-jitter:100ms:20s+budget"));

  @Test
  void oneThreadAndFourThreadsGiveIdenticalResultsInTaskOrder() throws Exception {
    List<Runs.Task> tasks = Runs.seeds(SMALL, 6);
    List<PolicyResult> one = Runs.run(tasks, 1, null);
    List<PolicyResult> four = Runs.run(tasks, 4, null);
    assertThat(render(four)).isEqualTo(render(one));
    assertThat(one).extracting(PolicyResult::name).containsExactly("fixed", "fixed", "fixed", "fixed", "fixed",
        "fixed", "full-jitter:100ms:20s+budget", "full-jitter:100ms:20s+budget", "full-jitter:100ms:20s+budget",
        "full-jitter:100ms:20s+budget", "full-jitter:100ms:20s+budget", "full-jitter:100ms:20s+budget");
    // The seeds differ, so the runs do.
    assertThat(render(one.subList(0, 1))).isNotEqualTo(render(one.subList(1, 2)));
    List<Summary> summaries = Runs.summaries(tasks, 3, null);
    for (int i = 0; i < tasks.size(); i++) {
      assertThat(summaries.get(i)).isEqualTo(one.get(i).summary());
    }
  }

  @Test
  void seedIIsTheScenarioSeedPlusIAndTheFirstIsTheScenariosOwnRun() throws Exception {
    List<Runs.Task> tasks = Runs.seeds(SMALL.with("seed", 40), 3);
    assertThat(tasks).extracting(Runs.Task::seed).containsExactly(40L, 41L, 42L, 40L, 41L, 42L);
    assertThat(tasks).extracting(Runs.Task::policy).containsExactly("fixed", "fixed", "fixed",
        "full-jitter:100ms:20s+budget", "full-jitter:100ms:20s+budget", "full-jitter:100ms:20s+budget");
    List<PolicyResult> runs = Runs.run(tasks, 2, null);
    SimulationResult single = Simulator.run(SMALL.with("seed", 40));
    assertThat(render(List.of(runs.get(0), runs.get(3)))).isEqualTo(render(single.policies()));
    assertThat(Runs.seeds(SMALL, 1)).extracting(Runs.Task::seed).containsExactly(3L, 3L);
  }

  @Test
  void aTaskMayRunAPolicyTheScenarioDoesNotList() throws Exception {
    Runs.Task task = Runs.task(SMALL, "aws-standard", 9);
    assertThat(task.runScenario().policyNames()).containsExactly("aws-standard");
    assertThat(task.runScenario().value("seed")).isEqualTo("9");
    assertThat(task.scenario()).isSameAs(SMALL);
    assertThat(Runs.run(List.of(task), 1, null).get(0).name()).isEqualTo("aws-standard");
    assertThatThrownBy(() -> Runs.task(SMALL, "no-such-policy", 1)).isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith("policies: unknown policy 'no-such-policy'");
  }

  @Test
  void progressCountsEverySimulatedSecondOnceAndOnlyRises() throws Exception {
    List<Runs.Task> tasks = Runs.seeds(SMALL, 5);
    assertThat(Runs.totalSeconds(tasks)).isEqualTo(10 * 60);
    for (int threads : new int[] {1, 3}) {
      List<Long> seen = new ArrayList<>();
      Runs.run(tasks, threads, seen::add); // never called concurrently: a plain list is safe
      assertThat(seen).isSortedAccordingTo(Long::compare).doesNotHaveDuplicates();
      assertThat(seen.get(seen.size() - 1)).isEqualTo(600);
    }
  }

  @Test
  void badArgumentsAreRefusedByName() {
    assertThatThrownBy(() -> Runs.run(List.of(), 0, null)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("threads must be at least 1, was 0");
    assertThatThrownBy(() -> Runs.seeds(SMALL, 0)).isInstanceOf(ScenarioException.class)
        .hasMessage("seeds: must be at least 1, was 0");
    assertThatThrownBy(() -> Runs.seeds(SMALL.with("seed", Long.MAX_VALUE - 1), 3))
        .isInstanceOf(ScenarioException.class).hasMessageStartingWith("seeds: 3 seeds from seed 9223372036854775806 "
            + "would pass the largest seed");
    List<Runs.Task> withNull = new ArrayList<>();
    withNull.add(null);
    assertThatThrownBy(() -> Runs.run(withNull, 1, null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void anInterruptStopsEveryRunAndNothingRunsAfterwards() throws Exception {
    List<Runs.Task> tasks = Runs.seeds(SMALL, 50);
    for (int threads : new int[] {1, 2}) {
      Thread caller = Thread.currentThread();
      AtomicLong last = new AtomicLong();
      java.util.concurrent.atomic.AtomicBoolean sent = new java.util.concurrent.atomic.AtomicBoolean();
      assertThatThrownBy(() -> Runs.run(tasks, threads, completed -> {
        last.set(completed);
        // One interrupt only: a second one, sent by a worker still reporting while the caller stops the
        // others, would be a new interrupt that Runs rightly leaves set.
        if (completed >= 30 && sent.compareAndSet(false, true)) {
          caller.interrupt();
        }
      })).isInstanceOf(InterruptedException.class);
      assertThat(Thread.interrupted()).isFalse(); // the interrupt was consumed by the exception
      long atReturn = last.get();
      assertThat(atReturn).isLessThan(Runs.totalSeconds(tasks) / 2);
      // Every worker has ended before run returned: the count cannot move any more.
      Thread.sleep(50);
      assertThat(last.get()).isEqualTo(atReturn);
    }
  }

  @Test
  void aFailedRunStopsTheOthersAndItsExceptionIsRethrown() {
    List<Integer> inputs = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      inputs.add(i);
    }
    AtomicLong started = new AtomicLong();
    IllegalStateException boom = new IllegalStateException("run 3 failed");
    assertThatThrownBy(() -> Runs.map(inputs, 2, null, (Integer input, java.util.function.IntConsumer seconds) -> {
      started.incrementAndGet();
      if (input == 3) {
        throw boom;
      }
      for (int s = 1; s <= 1000; s++) {
        seconds.accept(s);
      }
      return input;
    })).isSameAs(boom);
    assertThat(started.get()).isLessThan(100);
  }

  @Test
  void moreConcurrentStormsThanTheHeapHoldsAreRefusedSayingHowManyThreadsFit() {
    long usable = MemoryEstimate.usableBytes();
    // The estimate is a fixed part (such as a server's latency table) plus a part per client: two probes
    // give both, so each storm can be sized to 40% of what a run may use: one at a time fits, three do not.
    long at1000 = estimate(1000);
    long at2000 = estimate(2000);
    double perClient = (at2000 - at1000) / 1000.0;
    double fixed = at1000 - 1000 * perClient;
    long clients = (long) ((0.4 * usable - fixed) / perClient);
    Scenario big = Scenario.of(Map.of("clients", clients, "policies", "fixed", "duration", "400s"));
    List<Runs.Task> tasks = Runs.seeds(big, 3);
    assertThatThrownBy(() -> Runs.summaries(tasks, 3, null)).isInstanceOf(ScenarioException.class)
        .hasMessageStartingWith("threads: 3 runs, 3 at a time, may need about ")
        .hasMessageContaining("use at most 2 threads")
        .hasMessageContaining("BACKOFF_JAVA_OPTS=-Xmx");
  }

  private static long estimate(long clients) {
    Scenario probe = Scenario.of(Map.of("clients", clients, "policies", "fixed", "duration", "400s"));
    return MemoryEstimate.estimate(probe, probe.policies.get(0))[0];
  }

  private static String render(List<PolicyResult> results) {
    StringBuilder text = new StringBuilder();
    for (PolicyResult result : results) {
      text.append(result.name()).append(' ').append(result.summary()).append(' ').append(result.events()).append('\n');
      for (Second second : result.series()) {
        text.append(second).append('\n');
      }
    }
    return text.toString();
  }
}
