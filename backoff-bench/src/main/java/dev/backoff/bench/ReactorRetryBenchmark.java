package dev.backoff.bench;

import dev.backoff.Backoff;
import dev.backoff.RetryPolicy;
import dev.backoff.reactor.BackoffOperators;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * A Mono that succeeds at once, subscribed to: bare, under Backoff's Reactor operator, and under Reactor's own
 * {@code retryWhen(Retry.backoff(...))}, with the same limits (3 attempts, 100 ms exponential backoff). The
 * Monos are assembled once; each operation is one subscription, as a server handling a request pays it.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Thread)
public class ReactorRetryBenchmark {
  /** The subscriber's side: no retry. */
  public static final String BARE = "bare";
  /** {@code mono.transform(BackoffOperators.retry(policy))}. */
  public static final String BACKOFF = "backoff";
  /** {@code mono.retryWhen(Retry.backoff(2, 100 ms))}. */
  public static final String REACTOR_RETRY_BACKOFF = "reactor-retry-backoff";

  @Param({BARE, BACKOFF, REACTOR_RETRY_BACKOFF})
  public String operator;

  /** Read by the source, so that the value is not a compile-time constant. */
  public String value = "ok";

  Mono<String> mono;

  @Setup
  public void setUp() {
    Mono<String> source = Mono.fromSupplier(() -> value);
    mono = switch (operator) {
      case BARE -> source;
      case BACKOFF -> source.transform(BackoffOperators.retry(RetryPolicy.<String>builder().maxAttempts(3)
          .backoff(Backoff.exponential(Duration.ofMillis(100), 2, Duration.ofSeconds(10))).build()));
      case REACTOR_RETRY_BACKOFF -> source.retryWhen(Retry.backoff(2, Duration.ofMillis(100)));
      default -> throw new IllegalArgumentException("operator must be one of bare, backoff, reactor-retry-backoff; was "
          + operator);
    };
  }

  @Benchmark
  public void subscribe(Blackhole blackhole) {
    mono.subscribe(blackhole::consume);
  }
}
