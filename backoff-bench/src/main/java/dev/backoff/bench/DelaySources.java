package dev.backoff.bench;

import dev.backoff.Backoff;
import dev.backoff.Jitter;
import dev.backoff.RetryPolicy;
import dev.backoff.driver.CallState;
import dev.backoff.driver.Engine;
import dev.backoff.driver.Verdict;
import dev.failsafe.RetryPolicyBuilder;
import io.github.resilience4j.core.IntervalBiFunction;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.core.functions.Either;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.springframework.retry.backoff.BackOffContext;
import org.springframework.retry.backoff.ExponentialBackOffPolicy;
import org.springframework.retry.backoff.ExponentialRandomBackOffPolicy;
import org.springframework.retry.backoff.FixedBackOffPolicy;
import org.springframework.retry.backoff.Sleeper;
import org.springframework.retry.backoff.SleepingBackOffPolicy;
import org.springframework.retry.backoff.UniformRandomBackOffPolicy;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.BackOffExecution;
import org.springframework.util.backoff.ExponentialBackOff;
import org.springframework.util.backoff.FixedBackOff;

/**
 * The delay computations compared by {@link DelayBenchmark}: each Backoff strategy and the peers'
 * equivalents, on the shared schedule (100 ms initial, ×2, 10 s cap; proportional jitter ±50 %).
 */
public final class DelaySources {
  public static final String BACKOFF_FIXED = "backoff-fixed";
  public static final String BACKOFF_LINEAR = "backoff-linear";
  public static final String BACKOFF_EXPONENTIAL = "backoff-exponential";
  public static final String BACKOFF_EXPONENTIAL_FULL = "backoff-exponential-full";
  public static final String BACKOFF_EXPONENTIAL_EQUAL = "backoff-exponential-equal";
  public static final String BACKOFF_EXPONENTIAL_PROPORTIONAL = "backoff-exponential-proportional";
  public static final String BACKOFF_EXPONENTIAL_GAUSSIAN = "backoff-exponential-gaussian";
  public static final String BACKOFF_DECORRELATED = "backoff-decorrelated";
  public static final String BACKOFF_DECORRELATED_V2 = "backoff-decorrelated-v2";
  public static final String BACKOFF_GOOGLE_CLOUD = "backoff-google-cloud";
  /** Backoff's decision engine per failure (classification, attempt limit, delay), Failsafe's counterpart. */
  public static final String BACKOFF_ENGINE_EXPONENTIAL_PROPORTIONAL = "backoff-engine-exponential-proportional";
  public static final String RESILIENCE4J_FIXED = "resilience4j-fixed";
  public static final String RESILIENCE4J_EXPONENTIAL = "resilience4j-exponential";
  public static final String RESILIENCE4J_EXPONENTIAL_RANDOM = "resilience4j-exponential-random";
  public static final String RESILIENCE4J_RANDOMIZED = "resilience4j-randomized";
  /** What Resilience4j's retry actually calls: the interval function adapted to an IntervalBiFunction. */
  public static final String RESILIENCE4J_BI_EXPONENTIAL_RANDOM = "resilience4j-bi-exponential-random";
  /** Failsafe computes delays only inside an execution: a standalone Execution recording each failure. */
  public static final String FAILSAFE_ENGINE_EXPONENTIAL = "failsafe-engine-exponential";
  public static final String FAILSAFE_ENGINE_EXPONENTIAL_JITTER = "failsafe-engine-exponential-jitter";
  public static final String SPRING_RETRY_FIXED = "spring-retry-fixed";
  public static final String SPRING_RETRY_EXPONENTIAL = "spring-retry-exponential";
  public static final String SPRING_RETRY_EXPONENTIAL_RANDOM = "spring-retry-exponential-random";
  public static final String SPRING_RETRY_UNIFORM_RANDOM = "spring-retry-uniform-random";
  public static final String SPRING_CORE_FIXED = "spring-core-fixed";
  public static final String SPRING_CORE_EXPONENTIAL = "spring-core-exponential";
  public static final String SPRING_CORE_EXPONENTIAL_JITTER = "spring-core-exponential-jitter";

  static final long INITIAL_MILLIS = 100;
  static final double MULTIPLIER = 2;
  static final long CAP_MILLIS = 10_000;
  static final double JITTER_FACTOR = 0.5;
  static final double GAUSSIAN_DEVIATION = 0.2;
  static final long SEED = 42;

  private static final long NANOS_PER_MILLI = 1_000_000L;
  private static final Duration INITIAL = Duration.ofMillis(INITIAL_MILLIS);
  private static final Duration CAP = Duration.ofMillis(CAP_MILLIS);
  private static final Exception FAILURE = new FailingTwice.AttemptFailure("attempt failed");

  private DelaySources() {}

  /**
   * Creates the named delay source with its own seeded random (where the library lets us pass one).
   *
   * @throws IllegalArgumentException if {@code name} is not one of the constants above
   */
  public static DelaySource create(String name) {
    switch (name) {
      case BACKOFF_FIXED:
        return backoff(Backoff.fixed(INITIAL));
      case BACKOFF_LINEAR:
        return backoff(Backoff.linear(INITIAL, INITIAL, CAP));
      case BACKOFF_EXPONENTIAL:
        return backoff(Backoff.exponential(INITIAL, MULTIPLIER, CAP));
      case BACKOFF_EXPONENTIAL_FULL:
        return backoff(Backoff.exponential(INITIAL, MULTIPLIER, CAP, Jitter.full()));
      case BACKOFF_EXPONENTIAL_EQUAL:
        return backoff(Backoff.exponential(INITIAL, MULTIPLIER, CAP, Jitter.equal()));
      case BACKOFF_EXPONENTIAL_PROPORTIONAL:
        return backoff(Backoff.exponential(INITIAL, MULTIPLIER, CAP, Jitter.proportional(JITTER_FACTOR)));
      case BACKOFF_EXPONENTIAL_GAUSSIAN:
        return backoff(Backoff.exponential(INITIAL, MULTIPLIER, CAP, Jitter.gaussian(GAUSSIAN_DEVIATION)));
      case BACKOFF_DECORRELATED:
        return backoff(Backoff.decorrelated(INITIAL, CAP));
      case BACKOFF_DECORRELATED_V2:
        return backoff(Backoff.decorrelatedV2(INITIAL, CAP));
      case BACKOFF_GOOGLE_CLOUD:
        return backoff(Backoff.googleCloud(Duration.ofSeconds(32)));
      case BACKOFF_ENGINE_EXPONENTIAL_PROPORTIONAL:
        return new BackoffEngineSource(
            Backoff.exponential(INITIAL, MULTIPLIER, CAP, Jitter.proportional(JITTER_FACTOR)));
      case RESILIENCE4J_FIXED:
        return resilience4j(IntervalFunction.of(INITIAL));
      case RESILIENCE4J_EXPONENTIAL:
        return resilience4j(IntervalFunction.ofExponentialBackoff(INITIAL, MULTIPLIER, CAP));
      case RESILIENCE4J_EXPONENTIAL_RANDOM:
        return resilience4j(IntervalFunction.ofExponentialRandomBackoff(INITIAL, MULTIPLIER, JITTER_FACTOR, CAP));
      case RESILIENCE4J_RANDOMIZED:
        return resilience4j(IntervalFunction.ofRandomized(INITIAL, JITTER_FACTOR));
      case RESILIENCE4J_BI_EXPONENTIAL_RANDOM:
        return new Resilience4jBiSource(IntervalBiFunction.ofIntervalFunction(
            IntervalFunction.ofExponentialRandomBackoff(INITIAL, MULTIPLIER, JITTER_FACTOR, CAP)));
      case FAILSAFE_ENGINE_EXPONENTIAL:
        return new FailsafeEngineSource(dev.failsafe.RetryPolicy.builder().withBackoff(INITIAL, CAP, MULTIPLIER));
      case FAILSAFE_ENGINE_EXPONENTIAL_JITTER:
        return new FailsafeEngineSource(
            dev.failsafe.RetryPolicy.builder().withBackoff(INITIAL, CAP, MULTIPLIER).withJitter(JITTER_FACTOR));
      case SPRING_RETRY_FIXED: {
        FixedBackOffPolicy policy = new FixedBackOffPolicy();
        policy.setBackOffPeriod(INITIAL_MILLIS);
        return new SpringRetrySource(policy);
      }
      case SPRING_RETRY_EXPONENTIAL:
        return new SpringRetrySource(springExponential(new ExponentialBackOffPolicy()));
      case SPRING_RETRY_EXPONENTIAL_RANDOM:
        return new SpringRetrySource(springExponential(new ExponentialRandomBackOffPolicy()));
      case SPRING_RETRY_UNIFORM_RANDOM: {
        UniformRandomBackOffPolicy policy = new UniformRandomBackOffPolicy();
        policy.setMinBackOffPeriod(INITIAL_MILLIS);
        policy.setMaxBackOffPeriod(CAP_MILLIS);
        return new SpringRetrySource(policy);
      }
      case SPRING_CORE_FIXED:
        return new SpringCoreSource(new FixedBackOff(INITIAL_MILLIS));
      case SPRING_CORE_EXPONENTIAL:
        return new SpringCoreSource(springCoreExponential(0));
      case SPRING_CORE_EXPONENTIAL_JITTER:
        return new SpringCoreSource(springCoreExponential((long) (INITIAL_MILLIS * JITTER_FACTOR)));
      default:
        throw new IllegalArgumentException("unknown delay source: " + name);
    }
  }

  private static ExponentialBackOffPolicy springExponential(ExponentialBackOffPolicy policy) {
    policy.setInitialInterval(INITIAL_MILLIS);
    policy.setMultiplier(MULTIPLIER);
    policy.setMaxInterval(CAP_MILLIS);
    return policy;
  }

  private static ExponentialBackOff springCoreExponential(long jitterMillis) {
    ExponentialBackOff backOff = new ExponentialBackOff(INITIAL_MILLIS, MULTIPLIER);
    backOff.setMaxInterval(CAP_MILLIS);
    backOff.setJitter(jitterMillis);
    return backOff;
  }

  /**
   * The {@link Backoff} behind one of the {@code backoff-*} strategy sources (not the engine's), for
   * benchmarks that call it at one retry number.
   *
   * @throws IllegalArgumentException if {@code name} is not a Backoff strategy source
   */
  static Backoff backoffOf(String name) {
    if (create(name) instanceof BackoffSource source) {
      return source.backoff;
    }
    throw new IllegalArgumentException("not a Backoff strategy source: " + name);
  }

  private static DelaySource backoff(Backoff backoff) {
    return new BackoffSource(backoff, new SplittableRandom(SEED));
  }

  private static DelaySource resilience4j(IntervalFunction function) {
    return new Resilience4jSource(function);
  }

  /** A Backoff strategy, fed its own history as the decision engine would. */
  static final class BackoffSource extends DelaySource {
    private final Backoff backoff;
    private final RandomGenerator random;
    private long previous;
    private long total;

    BackoffSource(Backoff backoff, RandomGenerator random) {
      this.backoff = backoff;
      this.random = random;
    }

    @Override
    void startCall() {
      previous = 0;
      total = 0;
    }

    @Override
    long delayNanos(int retry) {
      long delay = backoff.delayNanos(retry, previous, total, random);
      previous = delay;
      total += delay;
      return delay;
    }
  }

  /** Backoff's decision engine: one call state per call, each failure classified and decided. */
  static final class BackoffEngineSource extends DelaySource {
    private final RetryPolicy<Object> policy;
    private final RandomGenerator random = new SplittableRandom(SEED);
    private CallState<Object> execution;

    BackoffEngineSource(Backoff backoff) {
      this.policy = RetryPolicy.builder().unlimitedAttempts().backoff(backoff).build();
    }

    @Override
    void startCall() {
      execution = Engine.newExecution(policy, 0, random);
    }

    @Override
    long delayNanos(int retry) {
      // The engine takes time as an argument: the driver reads its clock once per attempt anyway.
      return Engine.record(execution, null, FAILURE, Verdict.RETRYABLE, 0).delayNanos();
    }
  }

  /** Resilience4j's interval function (boxed Integer in, boxed Long milliseconds out). */
  static final class Resilience4jSource extends DelaySource {
    private final IntervalFunction function;

    Resilience4jSource(IntervalFunction function) {
      this.function = function;
    }

    @Override
    long delayNanos(int retry) {
      return function.apply(retry) * NANOS_PER_MILLI;
    }
  }

  /** Resilience4j's IntervalBiFunction, as its retry calls it after an exception. */
  static final class Resilience4jBiSource extends DelaySource {
    private final IntervalBiFunction<Object> function;
    private final Either<Throwable, Object> outcome = Either.left(FAILURE);

    Resilience4jBiSource(IntervalBiFunction<Object> function) {
      this.function = function;
    }

    @Override
    long delayNanos(int retry) {
      return function.apply(retry, outcome) * NANOS_PER_MILLI;
    }
  }

  /** Failsafe's standalone execution: its only public route to the delay computation. */
  static final class FailsafeEngineSource extends DelaySource {
    private final dev.failsafe.RetryPolicy<Object> policy;
    private dev.failsafe.Execution<Object> execution;

    FailsafeEngineSource(RetryPolicyBuilder<Object> builder) {
      this.policy = builder.withMaxRetries(-1).handle(Exception.class).build();
    }

    @Override
    void startCall() {
      execution = dev.failsafe.Execution.of(policy);
    }

    @Override
    long delayNanos(int retry) {
      execution.recordException(FAILURE);
      return execution.getDelay().toNanos();
    }
  }

  /** Spring Retry's backoff policy; its sleeper records the delay instead of sleeping. */
  static final class SpringRetrySource extends DelaySource {
    private final RecordingSleeper sleeper = new RecordingSleeper();
    private final org.springframework.retry.backoff.BackOffPolicy policy;
    private BackOffContext context;

    SpringRetrySource(SleepingBackOffPolicy<?> policy) {
      this.policy = policy.withSleeper(sleeper);
    }

    @Override
    void startCall() {
      context = policy.start(null);
    }

    @Override
    long delayNanos(int retry) {
      policy.backOff(context);
      return sleeper.lastMillis * NANOS_PER_MILLI;
    }
  }

  /** Records the last requested sleep, in milliseconds, without sleeping. */
  static final class RecordingSleeper implements Sleeper {
    private static final long serialVersionUID = 1L;
    long lastMillis;

    @Override
    public void sleep(long backOffPeriod) {
      lastMillis = backOffPeriod;
    }
  }

  /** Spring Framework's BackOff: one BackOffExecution per call. */
  static final class SpringCoreSource extends DelaySource {
    private final BackOff backOff;
    private BackOffExecution execution;

    SpringCoreSource(BackOff backOff) {
      this.backOff = backOff;
    }

    @Override
    void startCall() {
      execution = backOff.start();
    }

    @Override
    long delayNanos(int retry) {
      return execution.nextBackOff() * NANOS_PER_MILLI;
    }
  }
}
