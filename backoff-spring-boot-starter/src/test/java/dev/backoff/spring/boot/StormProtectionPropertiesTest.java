package dev.backoff.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.backoff.AdaptiveRateLimiter;
import dev.backoff.CircuitBreaker;
import dev.backoff.CircuitOpenException;
import dev.backoff.Hedging;
import dev.backoff.RateLimitedException;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.FakeScheduler;
import dev.backoff.testing.RecordingSleeper;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import reactor.core.publisher.Hooks;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.web.reactive.function.client.WebClientCustomizer;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;

/**
 * The circuit breaker, the adaptive rate limiter and hedging configured per policy with
 * {@code backoff.policies.<name>.circuit-breaker.*}, {@code .rate-limiter.*} and {@code .hedging.*}, in a Spring
 * Boot context on fake time: what they build (by behaviour, with exact values), and how bad values fail the
 * context.
 */
class StormProtectionPropertiesTest {
  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class))
      .withUserConfiguration(BackoffAutoConfigurationTest.FakeTime.class);

  private HttpServer server;
  private ExecutorService serverThreads;
  private final CountDownLatch releaseSlowAnswer = new CountDownLatch(1);

  /**
   * Errors Reactor dropped. A cancelled exchange of the JDK connector may end after its cancellation with a
   * CompletionException wrapping a CancellationException, which Reactor drops (by default logging it at ERROR):
   * a Reactor quirk for any cancelled exchange of that connector. Only those may be dropped here.
   */
  private final List<Throwable> dropped = new CopyOnWriteArrayList<>();

  @BeforeEach
  void recordDroppedErrors() {
    Hooks.onErrorDropped(dropped::add);
  }

  @AfterEach
  void onlyCancellationsWereDropped() {
    Hooks.resetOnErrorDropped();
    assertThat(dropped).allMatch(e -> e instanceof CancellationException
        || e instanceof CompletionException && e.getCause() instanceof CancellationException);
  }

  @AfterEach
  void stop() {
    releaseSlowAnswer.countDown();
    if (server != null) {
      server.stop(0);
      serverThreads.shutdownNow();
    }
  }

  private static void fail(RetryExecutor<Object> executor) {
    assertThatThrownBy(() -> executor.call(() -> {
      throw new IOException("down");
    })).isInstanceOf(IOException.class);
  }

  // ------------------------------------------------------------------------------ circuit breaker

  @Test
  void theCircuitBreakerKeysBuildABreakerThatOpensWaitsAndCloses() {
    runner.withPropertyValues("backoff.policies.db.max-attempts=1",
            "backoff.policies.db.circuit-breaker.failure-rate-threshold=50%",
            "backoff.policies.db.circuit-breaker.window=4",
            "backoff.policies.db.circuit-breaker.wait-in-open=10s",
            "backoff.policies.db.circuit-breaker.trial-calls=1")
        .run(context -> {
          BackoffRegistry registry = context.getBean(BackoffRegistry.class);
          CircuitBreaker breaker = registry.policy("db").circuitBreaker();
          assertThat(breaker.name()).isEqualTo("db");
          RetryExecutor<Object> db = registry.executor("db");
          FakeClock clock = context.getBean(FakeClock.class);

          assertThat(db.call(() -> "ok")).isEqualTo("ok");
          fail(db);
          assertThat(db.call(() -> "ok")).isEqualTo("ok");
          assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED); // 3 calls: the window of 4 is not full
          fail(db); // 2 failures in 4 calls: 50%, the threshold
          assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
          assertThatThrownBy(() -> db.call(() -> "refused")).isInstanceOf(CircuitOpenException.class);

          clock.advance(Duration.ofSeconds(10).minusNanos(1));
          assertThatThrownBy(() -> db.call(() -> "refused")).isInstanceOf(CircuitOpenException.class);
          clock.advanceNanos(1);
          assertThat(db.call(() -> "trial")).isEqualTo("trial"); // the one trial call closes it
          assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
        });
  }

  @Test
  void aBareCircuitBreakerHasTheSpecLanguagesDefaults() {
    // +breaker: 50% of a window of 20 calls, 30 s open, 3 trial calls.
    runner.withPropertyValues("backoff.policies.db.max-attempts=1", "backoff.policies.db.circuit-breaker.enabled=true")
        .run(context -> {
          BackoffRegistry registry = context.getBean(BackoffRegistry.class);
          CircuitBreaker breaker = registry.policy("db").circuitBreaker();
          RetryExecutor<Object> db = registry.executor("db");
          for (int call = 1; call <= 19; call++) {
            fail(db);
          }
          assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED);
          fail(db);
          assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);

          FakeClock clock = context.getBean(FakeClock.class);
          clock.advance(Duration.ofSeconds(30).minusNanos(1));
          assertThat(breaker.tryAcquire()).isNull();
          clock.advanceNanos(1);
          List<CircuitBreaker.Permit> trials = new ArrayList<>();
          for (int trial = 1; trial <= 3; trial++) {
            trials.add(breaker.tryAcquire());
          }
          assertThat(trials).doesNotContainNull();
          assertThat(breaker.tryAcquire()).isNull();
          trials.forEach(CircuitBreaker.Permit::release);
        });
  }

  @Test
  void aTimeWindowIsADuration() {
    runner.withPropertyValues("backoff.policies.db.max-attempts=1", "backoff.policies.db.circuit-breaker.window=10s")
        .run(context -> {
          BackoffRegistry registry = context.getBean(BackoffRegistry.class);
          CircuitBreaker breaker = registry.policy("db").circuitBreaker();
          RetryExecutor<Object> db = registry.executor("db");
          for (int call = 1; call <= 9; call++) {
            fail(db);
          }
          assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.CLOSED); // a time window counts from 10 calls
          fail(db);
          assertThat(breaker.state()).isEqualTo(CircuitBreaker.State.OPEN);
        });
  }

  @Test
  void enabledFalseTurnsEachMechanismOff() {
    runner.withPropertyValues("backoff.policies.db.circuit-breaker.window=4",
            "backoff.policies.db.circuit-breaker.enabled=false",
            "backoff.policies.db.rate-limiter.max-wait=fail", "backoff.policies.db.rate-limiter.enabled=false",
            "backoff.policies.db.hedging.delay=50ms", "backoff.policies.db.hedging.enabled=false")
        .run(context -> {
          RetryPolicy<Object> db = context.getBean(BackoffRegistry.class).policy("db");
          assertThat(db.circuitBreaker()).isNull();
          assertThat(db.rateLimiter()).isNull();
          assertThat(db.hedging()).isNull();
        });
  }

  // ------------------------------------------------------------------------------ rate limiter

  /**
   * A first throttle (before any time bucket closed) enables the limiter at the open bucket's rate, cut,
   * with one token: the first reservation takes it, the next must wait for the next one; returns that wait.
   */
  private static Duration throttleAndTakeTheLastToken(AdaptiveRateLimiter limiter) {
    limiter.onResponse(true);
    assertThat(limiter.enabled()).isTrue();
    assertThat(limiter.reserve()).isZero();
    // The fake clock does not move: the next token is (1 - tokens) / fillRate away, rounded up.
    Duration wait = Duration.ofNanos((long) Math.ceil((1 - limiter.tokens()) / limiter.fillRate() * 1e9));
    assertThat(wait).isBetween(Duration.ofMillis(100), Duration.ofSeconds(2));
    return wait;
  }

  @Test
  void aBareRateLimiterWaitsAsLongAsItTakes() {
    runner.withPropertyValues("backoff.policies.api.rate-limiter.enabled=true").run(context -> {
      BackoffRegistry registry = context.getBean(BackoffRegistry.class);
      AdaptiveRateLimiter limiter = registry.policy("api").rateLimiter();
      assertThat(limiter.name()).isEqualTo("api");
      Duration wait = throttleAndTakeTheLastToken(limiter);

      assertThat(registry.executor("api").call(() -> "sent")).isEqualTo("sent");
      assertThat(context.getBean(RecordingSleeper.class).sleeps()).containsExactly(wait);
    });
  }

  @Test
  void aMaxWaitLongerThanTheWaitLetsTheAttemptWait() {
    runner.withPropertyValues("backoff.policies.api.rate-limiter.max-wait=5s").run(context -> {
      BackoffRegistry registry = context.getBean(BackoffRegistry.class);
      Duration wait = throttleAndTakeTheLastToken(registry.policy("api").rateLimiter());

      assertThat(registry.executor("api").call(() -> "sent")).isEqualTo("sent");
      assertThat(context.getBean(RecordingSleeper.class).sleeps()).containsExactly(wait);
    });
  }

  @Test
  void aShorterMaxWaitOrFailRefusesTheAttempt() {
    for (String maxWait : List.of("50ms", "fail")) { // the wait for the next token is 100ms or more
      runner.withPropertyValues("backoff.policies.api.rate-limiter.max-wait=" + maxWait).run(context -> {
        BackoffRegistry registry = context.getBean(BackoffRegistry.class);
        throttleAndTakeTheLastToken(registry.policy("api").rateLimiter());
        AtomicInteger attempts = new AtomicInteger();

        assertThatThrownBy(() -> registry.executor("api").call(attempts::incrementAndGet))
            .as(maxWait).isInstanceOf(RateLimitedException.class);
        assertThat(attempts).hasValue(0);
        assertThat(context.getBean(RecordingSleeper.class).sleeps()).isEmpty();
      });
    }
  }

  // ------------------------------------------------------------------------------ hedging

  /** A bean whose first call never completes and whose later calls answer at once. */
  static class SlowFirst {
    final List<CompletableFuture<String>> returned = new ArrayList<>();

    /** The futures returned so far (through the proxy). */
    public synchronized List<CompletableFuture<String>> returned() {
      return List.copyOf(returned);
    }

    @BackoffRetry("reads")
    public synchronized CompletableFuture<String> read() {
      CompletableFuture<String> answer = returned.isEmpty() ? new CompletableFuture<>()
          : CompletableFuture.completedFuture("hedge " + (returned.size() + 1));
      returned.add(answer);
      return answer;
    }
  }

  /** A plain method under a hedging policy: cannot hedge. */
  static class PlainHedged {
    @BackoffRetry("reads")
    public String read() {
      return "never called";
    }
  }

  /** A Flux method under a hedging policy: cannot hedge. */
  static class FluxHedged {
    @BackoffRetry("reads")
    public Flux<String> read() {
      return Flux.just("never called");
    }
  }

  private static final String[] READS = {"backoff.policies.reads.max-attempts=3",
      "backoff.policies.reads.hedging.delay=50ms", "backoff.policies.reads.hedging.max-hedges=2"};

  @Test
  void theHedgingKeysHedgeAStageMethodOnTheScheduler() {
    runner.withPropertyValues(READS).withBean(SlowFirst.class).run(context -> {
      assertThat(context.getBean(BackoffRegistry.class).policy("reads").hedging())
          .isEqualTo(Hedging.after(Duration.ofMillis(50)).maxHedges(2));
      SlowFirst bean = context.getBean(SlowFirst.class);
      FakeScheduler scheduler = context.getBean(FakeScheduler.class);
      CompletableFuture<String> answer = bean.read();

      assertThat(answer).isNotDone();
      assertThat(scheduler.delays()).containsExactly(Duration.ofMillis(50));
      scheduler.advance(Duration.ofMillis(50));

      assertThat(answer).isCompletedWithValue("hedge 2");
      assertThat(bean.returned()).hasSize(2);
      assertThat(bean.returned().get(0)).isCancelled(); // the loser
      assertThat(scheduler.pending()).isZero(); // the third attempt's hedge was cancelled
    });
  }

  @Test
  void maxHedgesDefaultsToOneAsInTheSpecLanguage() {
    runner.withPropertyValues("backoff.policies.reads.max-attempts=5", "backoff.policies.reads.hedging.delay=50ms")
        .run(context -> {
          // max-hedges defaults to 1, as +hedge:50ms: two attempts at most, though max-attempts allows 5.
          RetryPolicy<Object> reads = context.getBean(BackoffRegistry.class).policy("reads");
          assertThat(reads.hedging()).isEqualTo(Hedging.after(Duration.ofMillis(50)).maxHedges(1));
          FakeScheduler scheduler = context.getBean(FakeScheduler.class);
          AtomicInteger attempts = new AtomicInteger();
          CompletableFuture<Object> call = context.getBean(BackoffRegistry.class).asyncExecutor("reads")
              .call(() -> {
                attempts.incrementAndGet();
                return new CompletableFuture<>();
              });
          scheduler.advance(Duration.ofSeconds(10));
          assertThat(attempts).hasValue(2);
          call.cancel(true);
        });
  }

  @Test
  void anAdaptiveDelayFromPropertiesIsOneLiveDelayPerPolicy() {
    runner.withPropertyValues("backoff.policies.reads.max-attempts=3", "backoff.policies.reads.hedging.delay=p99",
        "backoff.policies.reads.hedging.max-hedges=2", "backoff.policies.reads.hedging.max-extra-load=0.1",
        "backoff.policies.reads.hedging.min-delay=5ms", "backoff.policies.reads.hedging.initial-delay=200ms",
        "backoff.policies.reads.hedging.window=200", "backoff.policies.reads.hedging.warm-up=20").run(context -> {
          Hedging hedging = context.getBean(BackoffRegistry.class).policy("reads").hedging();
          assertThat(hedging.maxHedges()).isEqualTo(2);
          dev.backoff.AdaptiveHedgeDelay delay = hedging.adaptiveDelay();
          assertThat(delay.quantile()).isEqualTo(0.99);
          assertThat(delay.maxExtraLoad()).isEqualTo(0.1);
          assertThat(delay.minDelay()).isEqualTo(Duration.ofMillis(5));
          assertThat(delay.delay()).isEqualTo(Duration.ofMillis(200));
          assertThat(delay.window()).isEqualTo(200);
          assertThat(delay.warmUp()).isEqualTo(20);
          assertThat(context.getBean(BackoffRegistry.class).policy("reads").hedging().adaptiveDelay())
              .as("the registry keeps one policy, so one live delay").isSameAs(delay);
        });
  }

  @Test
  void aPlainOrFluxMethodUnderAHedgingPolicyFailsTheContextNamingTheMethod() {
    runner.withPropertyValues(READS).withBean(PlainHedged.class).run(context ->
        assertThat(context).getFailure().rootCause().isInstanceOf(BackoffConfigurationException.class)
            .hasMessageContaining("PlainHedged.read").hasMessageContaining("policy 'reads' hedges")
            .hasMessageContaining("a plain method runs one attempt at a time"));
    runner.withPropertyValues(READS).withBean(FluxHedged.class).run(context ->
        assertThat(context).getFailure().rootCause().isInstanceOf(BackoffConfigurationException.class)
            .hasMessageContaining("FluxHedged.read").hasMessageContaining("a Flux's elements come from one attempt"));
  }

  // ------------------------------------------------------------------------------ bad values

  @Test
  void aBadValueFailsTheContextNamingThePropertyAndTheValue() {
    String p = "backoff.policies.db.";
    // property=value, the property named, what the message says
    String[][] cases = {
        {"circuit-breaker.failure-rate-threshold=150%", "circuit-breaker.failure-rate-threshold", "out of range (0..100]%"},
        {"circuit-breaker.failure-rate-threshold=most", "circuit-breaker.failure-rate-threshold", "not a percentage"},
        {"circuit-breaker.window=lots", "circuit-breaker.window", "neither a number of calls nor a duration"},
        {"circuit-breaker.window=0", "circuit-breaker.window", "out of range (1..1000000)"},
        {"circuit-breaker.wait-in-open=30", "circuit-breaker.wait-in-open", "breaker wait '30'"},
        {"circuit-breaker.trial-calls=0", "circuit-breaker.trial-calls", "out of range (1..10000)"},
        {"circuit-breaker.window=20:30s", "circuit-breaker.window", "one value, without ':' or '+'"},
        {"circuit-breaker.window= ", "circuit-breaker.window", "must not be blank"},
        {"rate-limiter.max-wait=sometimes", "rate-limiter.max-wait", "use wait, fail or a duration"},
        {"hedging.delay=-5ms", "hedging.delay", "hedge delay '-5ms'"},
        {"hedging.max-hedges=11", "hedging.max-hedges", "out of range (1..10)"},
        {"hedging.max-hedges=3", "hedging.max-hedges", "set backoff.policies.db.max-attempts to at least 4"},
        {"hedging.max-hedges=1", "hedging.delay", "hedging needs a delay"},
        {"hedging.delay=p100", "hedging.delay", "hedge quantile 'p100': out of range"},
        {"hedging.max-extra-load=2", "hedging.max-extra-load", "hedge max-extra-load '2': out of range (0..1]"},
        {"hedging.window=5", "hedging.window", "hedge window '5': out of range (10..1000000)"},
        {"hedging.warm-up=0", "hedging.warm-up", "hedge warm-up '0': out of range"},
        {"hedging.min-delay=30s", "hedging.min-delay", "hedge min-delay 30s must not exceed max-delay 10s"},
        {"hedging.initial-delay=1m", "hedging.initial-delay", "hedge initial-delay 1m must lie within"},
        {"max-attempts=1", "max-attempts", "set backoff.policies.db.max-attempts to at least 2 for hedging"},
        {"strategy=full-jitter+breaker", "strategy", "+breaker is circuit-breaker.*"},
    };
    for (String[] c : cases) {
      String value = c[0].substring(c[0].indexOf('=') + 1);
      List<String> properties = new ArrayList<>(List.of(p + c[0]));
      if (!c[0].startsWith("max-attempts=")) {
        properties.add(p + "max-attempts=3");
      }
      if ((c[0].startsWith("hedging.max-hedges=") || c[0].startsWith("max-attempts=")) && !c[2].contains("delay")) {
        properties.add(p + "hedging.delay=50ms");
      }
      if (c[0].startsWith("hedging.") && !c[0].startsWith("hedging.delay") && !c[0].startsWith("hedging.max-hedges")) {
        properties.add(p + "hedging.delay=p95"); // the adaptive delay's keys
      }
      runner.withPropertyValues(properties.toArray(String[]::new)).run(context -> {
        assertThat(context).as(c[0]).hasFailed();
        Throwable cause = context.getStartupFailure();
        while (cause.getCause() != null && !(cause instanceof BackoffConfigurationException)) {
          cause = cause.getCause();
        }
        assertThat(cause).as(c[0]).isInstanceOf(BackoffConfigurationException.class);
        BackoffConfigurationException bad = (BackoffConfigurationException) cause;
        assertThat(bad.property()).as(c[0]).isEqualTo(p + c[1]);
        if (c[1].equals(c[0].substring(0, c[0].indexOf('=')))) {
          assertThat(bad.value().trim()).as(c[0]).isEqualTo(value.trim());
        }
        assertThat(bad.getMessage()).as(c[0]).contains(p + c[1]).contains(c[2]).doesNotContain("bad policy");
      });
    }
  }

  @Test
  void aMistypedKeyInsideABlockFailsTheContext() {
    runner.withPropertyValues("backoff.policies.db.circuit-breaker.failure-rate=50")
        .run(context -> assertThat(context).getFailure()
            .hasStackTraceContaining("backoff.policies.db.circuit-breaker.failure-rate"));
  }

  @Test
  void aMethodOverrideThatCannotAllowTheHedgesFailsTheContext() {
    runner.withPropertyValues(READS).withBean(TooFewAttempts.class).run(context ->
        assertThat(context).getFailure().rootCause().isInstanceOf(BackoffConfigurationException.class)
            .hasMessageContaining("TooFewAttempts.read").hasMessageContaining("maxHedges(2) needs maxAttempts of at least 3"));
  }

  /** Overrides maxAttempts below what the policy's two hedges need. */
  static class TooFewAttempts {
    @BackoffRetry(value = "reads", maxAttempts = 2)
    public CompletableFuture<String> read() {
      return CompletableFuture.completedFuture("never called");
    }
  }

  // ------------------------------------------------------------------------------ metrics, endpoint, HTTP

  @Test
  void theBreakerAndTheLimiterReportToTheMeterRegistry() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffMetricsAutoConfiguration.class))
        .withUserConfiguration(BackoffAutoConfigurationTest.FakeTime.class)
        .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues("backoff.policies.db.max-attempts=1", "backoff.policies.db.circuit-breaker.window=2",
            "backoff.policies.db.rate-limiter.enabled=true")
        .run(context -> {
          BackoffRegistry registry = context.getBean(BackoffRegistry.class);
          MeterRegistry meters = context.getBean(MeterRegistry.class);
          fail(registry.executor("db"));
          fail(registry.executor("db"));
          assertThat(meters.get("backoff.breaker.state").tags("breaker", "db", "state", "open").gauge().value())
              .isEqualTo(1.0);
          AdaptiveRateLimiter limiter = registry.policy("db").rateLimiter();
          limiter.onResponse(true);
          assertThat(meters.get("backoff.limiter.enabled").tag("limiter", "db").gauge().value()).isEqualTo(1.0);
          assertThat(limiter.fillRate()).isGreaterThan(0.5); // the open bucket's rate, not the floor
          assertThat(meters.get("backoff.limiter.fill.rate").tag("limiter", "db").gauge().value())
              .isEqualTo(limiter.fillRate());
        });
  }

  @Test
  void theEndpointShowsTheBreakerTheLimiterAndHedging() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffEndpointAutoConfiguration.class))
        .withUserConfiguration(BackoffAutoConfigurationTest.FakeTime.class)
        .withPropertyValues("management.endpoints.web.exposure.include=backoff")
        .withPropertyValues("backoff.policies.db.max-attempts=1", "backoff.policies.db.circuit-breaker.window=2",
            "backoff.policies.db.circuit-breaker.failure-rate-threshold=60",
            "backoff.policies.db.rate-limiter.max-wait=fail", "backoff.policies.plain.max-attempts=2")
        .withPropertyValues(READS)
        .run(context -> {
          BackoffRegistry registry = context.getBean(BackoffRegistry.class);
          fail(registry.executor("db"));
          assertThat(registry.executor("db").call(() -> "ok")).isEqualTo("ok");
          BackoffEndpoint endpoint = context.getBean(BackoffEndpoint.class);
          Map<String, Object> db = endpoint.policy("db");
          assertThat(db.get("circuitBreaker")).isEqualTo(Map.of("state", "CLOSED", "calls", 2, "failures", 1,
              "failureRate", 50.0, "refusedCalls", 0L));
          assertThat(db.get("rateLimiter")).isEqualTo(Map.of("enabled", false, "fillRate", 0.0,
              "measuredSendRate", 0.0, "waits", 0L, "refusals", 0L, "throttles", 0L));
          assertThat(endpoint.policy("reads").get("hedging")).isEqualTo(Map.of("delay", "50ms", "maxHedges", 2));
          Map<String, Object> plain = endpoint.policy("plain");
          assertThat(plain).containsEntry("circuitBreaker", null).containsEntry("rateLimiter", null)
              .containsEntry("hedging", null);
        });
  }

  private final ApplicationContextRunner http = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(BackoffAutoConfiguration.class, BackoffHttpAutoConfiguration.class))
      .withUserConfiguration(BackoffAutoConfigurationTest.FakeTime.class);

  @Test
  void aHedgingPolicyForTheRestClientFailsTheContext() {
    http.withPropertyValues(READS).withPropertyValues("backoff.http.rest-client-policy=reads")
        .run(context -> assertThat(context).getFailure().rootCause()
            .isInstanceOf(BackoffConfigurationException.class)
            .hasMessageContaining("backoff.http.rest-client-policy").hasMessageContaining("'reads'")
            .hasMessageContaining("a RestClient runs one attempt at a time"));
  }

  @Test
  void aPolicyWithAnAttemptTimeoutForTheRestClientFailsTheContextNamingIt() {
    http.withPropertyValues("backoff.policies.orders.attempt-timeout=2s", "backoff.http.rest-client-policy=orders")
        .run(context -> assertThat(context).getFailure().rootCause()
            .isInstanceOf(BackoffConfigurationException.class)
            .hasMessageContaining("backoff.http.rest-client-policy")
            .hasMessageContaining("backoff.policies.orders.attempt-timeout")
            .hasMessageContaining("cannot abandon one"));
  }

  @Test
  void theWebClientCustomizerHedgesWithTheNamedPolicy() throws Exception {
    AtomicInteger requests = new AtomicInteger();
    serverThreads = Executors.newCachedThreadPool();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(serverThreads);
    server.createContext("/", exchange -> {
      int number = requests.incrementAndGet();
      try {
        if (number == 1 && !releaseSlowAnswer.await(20, TimeUnit.SECONDS)) {
          return; // never released: the test has failed already
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      byte[] body = ("answer " + number).getBytes(StandardCharsets.UTF_8);
      try {
        exchange.sendResponseHeaders(200, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
          out.write(body);
        }
      } catch (IOException closedByClient) {
        // the loser's connection, closed by the client
      } finally {
        exchange.close();
      }
    });
    server.start();
    String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/";

    http.withPropertyValues(READS).withPropertyValues("backoff.http.web-client-policy=reads").run(context -> {
      WebClient.Builder builder = WebClient.builder().clientConnector(new JdkClientHttpConnector());
      context.getBean(WebClientCustomizer.class).customize(builder);
      CompletableFuture<String> body = builder.build().get().uri(url).retrieve().bodyToMono(String.class).toFuture();

      FakeScheduler scheduler = context.getBean(FakeScheduler.class);
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (requests.get() == 0 && System.nanoTime() - end < 0) {
        Thread.sleep(5); // the first exchange reaches the server on the client's threads
      }
      assertThat(scheduler.delays()).containsExactly(Duration.ofMillis(50));
      scheduler.advance(Duration.ofMillis(50));

      assertThat(body.get(20, TimeUnit.SECONDS)).isEqualTo("answer 2");
      assertThat(requests).hasValue(2);
    });
  }
}
