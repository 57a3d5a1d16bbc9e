package dev.backoff.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.ConcurrencyLimitedException;
import dev.backoff.ConcurrencyLimiter;
import dev.backoff.RetryPolicy;
import dev.backoff.spec.PolicySpec;
import dev.backoff.testing.FakeClock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The concurrency limiter configured per policy with {@code backoff.policies.<name>.concurrency-limiter.*}, in
 * a Spring Boot context on fake time: what it builds (the spec language's limiter, exactly), how bad values
 * fail the context naming the property, and what the meters and the endpoint show.
 */
class ConcurrencyLimiterPropertiesTest {
  private static final String P = "backoff.policies.db.concurrency-limiter.";
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class))
      .withUserConfiguration(BackoffAutoConfigurationTest.FakeTime.class);

  private static String limiter(ApplicationContextRunner runner, String... properties) {
    String[] described = new String[1];
    runner.withPropertyValues(properties).run(context -> {
      ConcurrencyLimiter limiter = context.getBean(BackoffRegistry.class).policy("db").concurrencyLimiter();
      described[0] = limiter == null ? null : limiter.toString();
    });
    return described[0];
  }

  @Test
  void eachKeyIsTheSuffixsKeyWithTheSameDefaults() {
    String spec = "x+concurrency:aimd:initial=10:min=5:max=200:retry-share=0.5:backoff-ratio=0.75:"
        + "latency-threshold=2s";
    String expected = PolicySpec.parse(spec).concurrency().builder().name("db").build().toString();
    assertThat(limiter(runner, P + "algorithm=aimd", P + "initial=10", P + "min=5", P + "max=200",
        P + "retry-share=0.5", P + "backoff-ratio=0.75", P + "latency-threshold=2s")).isEqualTo(expected)
        .isEqualTo("ConcurrencyLimiter[db: aimd, backoff ratio 0.75, latency threshold 2s, limit 10 in [5, 200], 0 "
            + "in flight, retry share 0.5]");
    assertThat(limiter(runner, P + "enabled=true")).isEqualTo("ConcurrencyLimiter[db: gradient, smoothing 0.2, "
        + "queue allowance 4.0, min-RTT window 30s, backoff ratio 0.9, limit 20 in [1, 1000], 0 in flight, retry "
        + "share 0.8]");
    assertThat(limiter(runner, P + "smoothing=0.5", P + "queue-allowance=2", P + "min-rtt-window=1m"))
        .isEqualTo("ConcurrencyLimiter[db: gradient, smoothing 0.5, queue allowance 2.0, min-RTT window 1m, backoff "
            + "ratio 0.9, limit 20 in [1, 1000], 0 in flight, retry share 0.8]");
    assertThat(limiter(runner, P + "algorithm=fixed", P + "limit=3")).isEqualTo("ConcurrencyLimiter[db: fixed, "
        + "limit 3 in [3, 3], 0 in flight, retry share 0.8]");
    assertThat(limiter(runner, P + "algorithm=fixed", P + "limit=3", P + "enabled=false")).isNull();
    assertThat(limiter(runner, "backoff.policies.db.max-attempts=2")).isNull();
  }

  @Test
  void aFullLimitRefusesTheFirstAttemptOfACallUnderThePolicy() {
    runner.withPropertyValues(P + "algorithm=fixed", P + "limit=1").run(context -> {
      BackoffRegistry registry = context.getBean(BackoffRegistry.class);
      ConcurrencyLimiter limiter = registry.policy("db").concurrencyLimiter();
      assertThat(limiter.name()).isEqualTo("db");
      ConcurrencyLimiter.Permit held = limiter.tryAcquire(ConcurrencyLimiter.AttemptKind.FIRST);
      assertThatThrownBy(() -> registry.executor("db").call(() -> "never sent"))
          .isInstanceOf(ConcurrencyLimitedException.class)
          .hasMessage("concurrency limiter 'db' refused the first attempt: 1 attempts in flight, limit 1");
      held.release();
      assertThat(registry.executor("db").call(() -> "sent")).isEqualTo("sent");
    });
  }

  @Test
  void theAdaptiveLimitRunsOnTheContextsClock() {
    runner.withPropertyValues(P + "algorithm=aimd", P + "latency-threshold=1s").run(context -> {
      FakeClock clock = context.getBean(FakeClock.class);
      ConcurrencyLimiter limiter = context.getBean(BackoffRegistry.class).policy("db").concurrencyLimiter();
      ConcurrencyLimiter.Permit slow = limiter.tryAcquire(ConcurrencyLimiter.AttemptKind.FIRST);
      clock.advance(Duration.ofMillis(1001));
      slow.onSuccess(); // slower than the threshold on the fake clock: a drop, 20 × 0.9
      assertThat(limiter.limit()).isEqualTo(18);
    });
  }

  @Test
  void aBadValueFailsTheContextNamingThePropertyAndTheValue() {
    // property=value (more properties after a space), the property named, what the message says
    String[][] cases = {
        {"algorithm=vegas", "algorithm", "concurrency algorithm 'vegas': unknown"},
        {"algorithm=aimdd", "algorithm", "did you mean 'aimd'?"},
        {"algorithm=fixed", "limit", "the fixed algorithm needs a limit, such as 20"},
        {"limit=5", "limit", "concurrency limit applies to the fixed algorithm only"},
        {"algorithm=fixed limit=0", "limit", "concurrency fixed '0': out of range (1..65536)"},
        {"algorithm=fixed limit=5 max=9", "max", "concurrency max does not apply to the fixed algorithm"},
        {"max=0", "max", "concurrency max '0': out of range (1..65536)"},
        {"min=10 max=5", "max", "concurrency min 10 must not exceed max 5"},
        {"initial=50 max=10", "max", "concurrency initial 50 must lie within min 1 and max 10"},
        {"retry-share=0", "retry-share", "concurrency retry-share '0': out of range (0..1]"},
        {"retry-share=most", "retry-share", "not a number"},
        {"backoff-ratio=1.5", "backoff-ratio", "out of range (0..1)"},
        {"latency-threshold=2s", "latency-threshold", "concurrency latency-threshold does not apply to the gradient "
            + "algorithm (only to aimd)"},
        {"algorithm=aimd smoothing=0.5", "smoothing", "does not apply to the aimd algorithm (only to gradient)"},
        {"queue-allowance=-1", "queue-allowance", "out of range [0..65536]"},
        {"min-rtt-window=30", "min-rtt-window", "'30' has no unit; write 30s"},
        {"min-rtt-window=0s", "min-rtt-window", "must be positive"},
        {"smoothing=0:5", "smoothing", "one value, without ':' or '+'"},
    };
    for (String[] c : cases) {
      List<String> properties = new ArrayList<>();
      for (String property : c[0].split(" ")) {
        properties.add(P + property);
      }
      runner.withPropertyValues(properties.toArray(String[]::new)).run(context -> assertThat(context).as(c[0])
          .getFailure().rootCause().isInstanceOfSatisfying(BackoffConfigurationException.class, bad -> {
            assertThat(bad.property()).as(c[0]).isEqualTo(P + c[1]);
            assertThat(bad.getMessage()).as(c[0]).contains(P + c[1], c[2]).doesNotContain("bad policy");
          }));
    }
  }

  @Test
  void hedgingAndAConcurrencyLimiterCombine() {
    runner.withPropertyValues(P + "max=50", "backoff.policies.db.hedging.delay=50ms").run(context -> {
      assertThat(context).hasNotFailed();
      dev.backoff.RetryPolicy<Object> policy = context.getBean(BackoffRegistry.class).policy("db");
      assertThat(policy.hedging()).isNotNull();
      assertThat(policy.concurrencyLimiter().limit()).isEqualTo(20);
    });
    runner.withPropertyValues("backoff.policies.db.strategy=full-jitter+concurrency").run(context ->
        assertThat(context).getFailure().rootCause().hasMessageContaining("+concurrency is concurrency-limiter.*"));
  }

  @Test
  void theMetersAndTheEndpointShowTheLimitInFlightAndRefusals() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class,
            BackoffEndpointAutoConfiguration.class))
        .withUserConfiguration(BackoffAutoConfigurationTest.FakeTime.class)
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("management.endpoints.web.exposure.include=backoff", "backoff.policies.db.max-attempts=3",
            P + "algorithm=fixed", P + "limit=2", "backoff.policies.plain.max-attempts=2")
        .run(context -> {
          BackoffRegistry registry = context.getBean(BackoffRegistry.class);
          MeterRegistry meters = context.getBean(MeterRegistry.class);
          ConcurrencyLimiter limiter = registry.policy("db").concurrencyLimiter();
          ConcurrencyLimiter.Permit held = limiter.tryAcquire(ConcurrencyLimiter.AttemptKind.FIRST);
          // One of two slots held: the retry may take max(1, floor(2 × 0.8)) = 1, so it is refused.
          assertThatThrownBy(() -> registry.executor("db").run(() -> {
            throw new IOException("down");
          })).isInstanceOf(IOException.class);
          assertThat(meters.get("backoff.concurrency.limit").tag("limiter", "db").gauge().value()).isEqualTo(2);
          assertThat(meters.get("backoff.concurrency.in.flight").tag("limiter", "db").gauge().value()).isEqualTo(1);
          assertThat(meters.get("backoff.concurrency.refused").tags("limiter", "db", "attempt", "retry_or_hedge")
              .functionCounter().count()).isEqualTo(1);
          assertThat(meters.get("backoff.concurrency.refused").tags("limiter", "db", "attempt", "first")
              .functionCounter().count()).isZero();
          BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
          assertThat(endpoint.policy("db").get("concurrencyLimiter")).isEqualTo(Map.of("limit", 2, "minLimit", 2,
              "maxLimit", 2, "inFlight", 1, "retryShare", 0.8, "refusedFirstAttempts", 0L,
              "refusedRetriesAndHedges", 1L));
          assertThat(endpoint.policy("plain")).containsEntry("concurrencyLimiter", null);
          held.release();
          RetryPolicy<Object> plain = registry.policy("plain");
          assertThat(plain.concurrencyLimiter()).isNull();
        });
  }
}
