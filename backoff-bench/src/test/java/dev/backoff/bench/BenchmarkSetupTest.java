package dev.backoff.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Param;

/**
 * Checks that every implementation each benchmark compares (every {@code @Param} value, read from the
 * annotation so none is forgotten) computes the same thing; no timing is measured here.
 */
class BenchmarkSetupTest {

  static List<String> paramValues(Class<?> benchmark, String field) throws NoSuchFieldException {
    Field f = benchmark.getField(field);
    return List.of(f.getAnnotation(Param.class).value());
  }

  @Test
  void everyLibraryReturnsTheResultOnTheSuccessPath() throws Exception {
    List<String> libraries = paramValues(SuccessPathBenchmark.class, "library");
    assertThat(libraries).contains(Libraries.DIRECT, Libraries.BACKOFF).hasSize(6);
    for (String library : libraries) {
      SuccessPathBenchmark benchmark = new SuccessPathBenchmark();
      benchmark.library = library;
      benchmark.value = "result of " + library;
      benchmark.setUp();
      assertThat(benchmark.call()).as(library).isEqualTo("result of " + library);
      assertThat(benchmark.call()).as(library).isEqualTo("result of " + library);
    }
  }

  @Test
  void everyLibraryRetriesExactlyTwiceOnTheRetryPath() throws Exception {
    List<String> libraries = paramValues(RetryPathBenchmark.class, "library");
    assertThat(libraries).contains(Libraries.BACKOFF, Libraries.BACKOFF_ENGINE).doesNotContain(Libraries.DIRECT)
        .hasSize(6);
    for (String library : libraries) {
      RetryPathBenchmark benchmark = new RetryPathBenchmark();
      benchmark.library = library;
      benchmark.setUp();
      for (int call = 0; call < 3; call++) {
        assertThat(benchmark.call()).as(library).isEqualTo(FailingTwice.RESULT);
        assertThat(benchmark.task.attempts()).as(library + " attempts").isEqualTo(3);
      }
    }
  }

  @Test
  void theRetryPathTaskReallyFailsWithoutARetryWrapper() {
    FailingTwice task = new FailingTwice();
    Invocation direct = Libraries.wrap(Libraries.DIRECT, task);
    assertThatThrownBy(direct::invoke).hasMessage("first attempt failed");
    assertThatThrownBy(direct::invoke).hasMessage("second attempt failed");
  }

  @Test
  void theEngineOnlyDriverStillFailsWhenAttemptsRunOut() {
    Invocation alwaysFailing = Libraries.wrap(Libraries.BACKOFF_ENGINE, () -> {
      throw new java.io.IOException("down");
    });
    assertThatThrownBy(alwaysFailing::invoke).isInstanceOf(java.io.IOException.class).hasMessage("down");
  }

  @Test
  void unknownLibraryIsNamedInTheError() {
    assertThatThrownBy(() -> Libraries.wrap("polly", () -> "x"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("polly");
    assertThatThrownBy(() -> DelaySources.create("polly"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("polly");
  }

  private static long millis(long value) {
    return Duration.ofMillis(value).toNanos();
  }

  private static List<Long> delays(String source, int count) {
    DelaySource delays = DelaySources.create(source);
    List<Long> values = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      values.add(delays.nextDelayNanos());
    }
    return values;
  }

  /** Two calls' worth: the second call must start the schedule again. */
  private static List<Long> twice(Long... oneCall) {
    List<Long> values = new ArrayList<>(List.of(oneCall));
    values.addAll(List.of(oneCall));
    return values;
  }

  @Test
  void deterministicSchedulesAgreeAcrossLibraries() {
    int count = 2 * DelaySource.RETRIES_PER_CALL;
    List<Long> exponential = twice(millis(100), millis(200), millis(400), millis(800), millis(1600),
        millis(3200), millis(6400), millis(10_000));
    for (String source : List.of(DelaySources.BACKOFF_EXPONENTIAL, DelaySources.RESILIENCE4J_EXPONENTIAL,
        DelaySources.FAILSAFE_ENGINE_EXPONENTIAL, DelaySources.SPRING_RETRY_EXPONENTIAL,
        DelaySources.SPRING_CORE_EXPONENTIAL)) {
      assertThat(delays(source, count)).as(source).isEqualTo(exponential);
    }
    List<Long> fixed = twice(millis(100), millis(100), millis(100), millis(100), millis(100), millis(100),
        millis(100), millis(100));
    for (String source : List.of(DelaySources.BACKOFF_FIXED, DelaySources.RESILIENCE4J_FIXED,
        DelaySources.SPRING_RETRY_FIXED, DelaySources.SPRING_CORE_FIXED)) {
      assertThat(delays(source, count)).as(source).isEqualTo(fixed);
    }
    assertThat(delays(DelaySources.BACKOFF_LINEAR, count)).isEqualTo(twice(millis(100), millis(200), millis(300),
        millis(400), millis(500), millis(600), millis(700), millis(800)));
  }

  @Test
  void everyDelaySourceStaysWithinItsBoundsAndRandomOnesVary() throws Exception {
    Set<String> deterministic = Set.of(DelaySources.BACKOFF_FIXED, DelaySources.BACKOFF_LINEAR,
        DelaySources.BACKOFF_EXPONENTIAL, DelaySources.RESILIENCE4J_FIXED, DelaySources.RESILIENCE4J_EXPONENTIAL,
        DelaySources.FAILSAFE_ENGINE_EXPONENTIAL, DelaySources.SPRING_RETRY_FIXED,
        DelaySources.SPRING_RETRY_EXPONENTIAL, DelaySources.SPRING_CORE_FIXED, DelaySources.SPRING_CORE_EXPONENTIAL);
    List<String> sources = paramValues(DelayBenchmark.class, "source");
    assertThat(sources).containsAll(deterministic);
    for (String source : sources) {
      DelayBenchmark benchmark = new DelayBenchmark();
      benchmark.source = source;
      benchmark.setUp();
      List<Long> first = new ArrayList<>();
      List<Long> second = new ArrayList<>();
      for (int i = 0; i < DelaySource.RETRIES_PER_CALL; i++) {
        first.add(benchmark.delay());
      }
      for (int i = 0; i < DelaySource.RETRIES_PER_CALL; i++) {
        second.add(benchmark.delay());
      }
      // Google Cloud's maximum is 32 s; every other schedule is capped at 10 s (+50 % for peers that
      // randomize after capping, as Resilience4j's and Spring's random policies do).
      long limit = source.equals(DelaySources.BACKOFF_GOOGLE_CLOUD) ? millis(32_000) : millis(15_000);
      assertThat(first).as(source).allSatisfy(delay -> assertThat(delay).isBetween(0L, limit));
      assertThat(second).as(source).allSatisfy(delay -> assertThat(delay).isBetween(0L, limit));
      if (deterministic.contains(source)) {
        assertThat(second).as(source).isEqualTo(first);
      } else {
        assertThat(second).as(source + " is random").isNotEqualTo(first);
      }
    }
  }

  @Test
  void delayAtRetryGivesTheDelayTheStrategyGivesAtThatRetry() throws Exception {
    for (String source : paramValues(DelayAtRetryBenchmark.class, "source")) {
      for (String retry : paramValues(DelayAtRetryBenchmark.class, "retry")) {
        DelayAtRetryBenchmark benchmark = new DelayAtRetryBenchmark();
        benchmark.source = source;
        benchmark.retry = Integer.parseInt(retry);
        benchmark.setUp();
        // The same strategy and seed, called through retries 1..retry as a call would: the benchmark's
        // first delay is the one at its retry.
        DelaySource call = DelaySources.create(source);
        long expected = 0;
        for (int i = 0; i < benchmark.retry; i++) {
          expected = call.nextDelayNanos();
        }
        assertThat(benchmark.delay()).as(source + " at retry " + retry).isEqualTo(expected);
      }
    }
  }
}
