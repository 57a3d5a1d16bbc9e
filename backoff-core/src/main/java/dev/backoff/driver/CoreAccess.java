package dev.backoff.driver;

import dev.backoff.AsyncRetryExecutor;
import dev.backoff.Decision;
import dev.backoff.RetryExecutor;
import dev.backoff.RetryPolicy;
import java.util.concurrent.CompletableFuture;
import java.util.random.RandomGenerator;

/**
 * The bridge through which this package reaches the engine's package-private internals (the JDK's
 * SharedSecrets pattern), so that none of them has to be public on a user-facing type. Implemented by
 * {@code dev.backoff} alone, which registers it when {@link RetryPolicy} is initialised; every entry
 * point of this package takes a policy, an executor or an execution, so that has happened before use.
 * Drivers never call it: use {@link RetryLoops} and {@link Engine}.
 */
public interface CoreAccess {
  /**
   * Registers the core's implementation; only {@code dev.backoff} calls it, once.
   *
   * @throws IllegalStateException if an implementation is registered already
   * @throws NullPointerException if {@code access} is null
   */
  static void register(CoreAccess access) {
    Bridge.register(access);
  }

  /** Whether the policy retries this result ({@code retryOnResult} matches; tested once). */
  <R> boolean retriesResult(RetryPolicy<R> policy, R result);

  /** Whether a deadline or listeners need the clock read before the first attempt. */
  boolean needsStartTime(RetryPolicy<?> policy);

  /** A new engine for one call. */
  <R> CallState<R> newExecution(RetryPolicy<R> policy, long startNanos, RandomGenerator random);

  /** Records an attempt's judged outcome and decides. */
  <R> Decision record(CallState<R> execution, R result, Throwable failure, Verdict verdict, long nowNanos);

  /** The breaker's refusal, {@link Engine#CIRCUIT_OPEN}: the core's own, so that both compare it by identity. */
  dev.backoff.CircuitBreaker.Permit circuitOpen();

  /** The failure of a call whose first attempt the gate refused with {@code effect} (see {@link Engine#refusedFirst}). */
  RuntimeException refusedFirst(RetryPolicy<?> policy, long effect);

  /** The gate's breaker: a permit, null without a breaker, or {@link Engine#CIRCUIT_OPEN} (see {@link Engine#admit}). */
  dev.backoff.CircuitBreaker.Permit admit(RetryPolicy<?> policy);

  /** The gate's admission for the attempt after a wait of {@code execution}'s (see {@link Engine#admit(CallState)}). */
  dev.backoff.CircuitBreaker.Permit admitRetry(CallState<?> execution);

  /** The gate's admission for a hedge (see {@link Engine#admitHedge}). */
  dev.backoff.CircuitBreaker.Permit admitHedge(CallState<?> execution);

  /** Hedging: the next hedge's delay after an attempt started (see {@link Engine#nextHedge}). */
  long nextHedge(RetryPolicy<?> policy, CallState<?> execution, long nowNanos);

  /** Hedging: a planned hedge fell due (see {@link Engine#hedgeDue}). */
  long hedgeDue(CallState<?> execution, dev.backoff.CircuitBreaker.Permit permit, long nowNanos);

  /** Hedging: an attempt's outcome the judge did not accept (see {@link Engine#hedgedOutcome}). */
  <R> long hedgedOutcome(CallState<R> execution, R result, Throwable failure, Verdict verdict,
      dev.backoff.CircuitBreaker.Permit permit, long nowNanos);

  /** Hedging: an attempt's accepted result wins the call (see {@link Engine#hedgeWon}). */
  <R> R hedgeWon(RetryPolicy<R> policy, CallState<R> execution, R result, int attempt,
      dev.backoff.CircuitBreaker.Permit permit, long startNanos, long nowNanos);

  /** Hedging: the attempts the call has started (see {@link Engine#hedgesStarted}). */
  int hedgesStarted(CallState<?> execution);

  /** Records a call whose first attempt succeeded, without an execution. */
  <R> void firstTrySucceeded(RetryPolicy<R> policy, R result, long startNanos, long nowNanos);

  /** The call state machine's first-attempt rule (see {@link Engine#startNanos}). */
  long startNanos(RetryPolicy<?> policy, dev.backoff.NanoClock clock);

  /** The gate in front of the first attempt (see {@link Engine#gate}). */
  /** {@link Engine#gateFirm}. */
  long gateFirm(RetryPolicy<?> policy, long startNanos, dev.backoff.NanoClock clock,
      dev.backoff.CircuitBreaker.Permit permit);

  /** {@link Engine#timerFiredFirm}. */
  long timerFiredFirm(RetryPolicy<?> policy, CallState<?> execution, dev.backoff.CircuitBreaker.Permit permit,
      dev.backoff.NanoClock clock);

  long gate(RetryPolicy<?> policy, long startNanos, dev.backoff.NanoClock clock,
      dev.backoff.CircuitBreaker.Permit permit);

  /** The first attempt's wait for its token is over (see {@link Engine#tokenWaited}). */
  long tokenWaited(RetryPolicy<?> policy, dev.backoff.CircuitBreaker.Permit permit);

  /** The judge (see {@link Engine#judge}). */
  <R> Verdict judge(RetryPolicy<R> policy, OutcomeJudge<R> judge, R result, Throwable failure);

  /** The first attempt was accepted (see {@link Engine#firstAccepted}). */
  <R> long firstAccepted(RetryPolicy<R> policy, R result, long startNanos, dev.backoff.NanoClock clock,
      dev.backoff.CircuitBreaker.Permit permit);

  /** The first attempt was not accepted (see {@link Engine#firstFailed}). */
  <R> CallState<R> firstFailed(RetryPolicy<R> policy, long startNanos, long nowNanos, RandomGenerator random,
      dev.backoff.CircuitBreaker.Permit permit);

  /** A judged outcome of an attempt after the first failure (see {@link Engine#outcome}). */
  <R> long outcome(CallState<R> execution, R result, Throwable failure, Verdict verdict, long nowNanos,
      dev.backoff.CircuitBreaker.Permit permit);

  /** A wait the machine asked for is over (see {@link Engine#timerFired}). */
  long timerFired(RetryPolicy<?> policy, CallState<?> execution, dev.backoff.CircuitBreaker.Permit permit,
      dev.backoff.NanoClock clock);

  /** The caller or a deadline stopped the call (see {@link Engine#stop}). */
  <R> R stop(CallState<R> execution, dev.backoff.StopReason reason, dev.backoff.NanoClock clock);

  /** The synchronous loop. */
  <R, T extends R> T sync(RetryExecutor<R> executor, SyncAttempt<T> attempt, OutcomeJudge<R> judge) throws Exception;

  /** The exponential shape of a built-in strategy, or null (see {@link PolicyShapes#exponential}). */
  PolicyShapes.Exponential exponentialShape(dev.backoff.Backoff backoff);

  /** The parameters of a gRPC throttling budget, or null (see {@link PolicyShapes#grpcThrottling}). */
  PolicyShapes.GrpcThrottling grpcThrottlingShape(dev.backoff.RetryBudget budget);

  /** The settings a policy uses (see {@link PolicyShapes#features}). */
  PolicyShapes.Features features(RetryPolicy<?> policy);

  /** The executor with its policy's deadline shortened (see {@link RetryLoops#within}). */
  <R> AsyncRetryExecutor<R> within(AsyncRetryExecutor<R> executor, long nanosLeft);

  /** The executor with its policy's deadline shortened (see {@link RetryLoops#within(RetryExecutor, long)}). */
  <R> RetryExecutor<R> within(RetryExecutor<R> executor, long nanosLeft);

  /** The asynchronous loop. */
  <R, T extends R> CompletableFuture<T> async(AsyncRetryExecutor<R> executor, AsyncAttempt<T> attempt,
      OutcomeJudge<R> judge);
}
