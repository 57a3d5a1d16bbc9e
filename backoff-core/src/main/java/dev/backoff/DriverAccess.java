package dev.backoff;

import dev.backoff.driver.AsyncAttempt;
import dev.backoff.driver.CallState;
import dev.backoff.driver.CoreAccess;
import dev.backoff.driver.OutcomeJudge;
import dev.backoff.driver.PolicyShapes;
import dev.backoff.driver.SyncAttempt;
import dev.backoff.driver.Verdict;
import java.util.concurrent.CompletableFuture;
import java.util.random.RandomGenerator;

/** The core's side of the driver SPI's bridge: package-private engine internals, reached from the SPI only. */
final class DriverAccess implements CoreAccess {
  /**
   * The execution behind a driver's handle (the core's own, the only implementation of {@link CallState}), or
   * null for none (a call before its first failure, where the input allows it).
   */
  @SuppressWarnings("unchecked")
  private static <R> Execution<R> of(CallState<R> state) {
    if (state == null || state instanceof Execution<?>) {
      return (Execution<R>) state;
    }
    throw new IllegalArgumentException("not a call state of the engine's: " + state);
  }

  @Override
  public <R> boolean retriesResult(RetryPolicy<R> policy, R result) {
    return policy.retryOnResult != null && policy.retryOnResult.test(result);
  }

  @Override
  public boolean needsStartTime(RetryPolicy<?> policy) {
    return policy.needsStartTime;
  }

  @Override
  public <R> Execution<R> newExecution(RetryPolicy<R> policy, long startNanos, RandomGenerator random) {
    // Through the machine's first-attempt rule, as the core's loops create theirs.
    return CallMachine.firstFailed(policy, startNanos, startNanos, random, null, null);
  }

  @Override
  public <R> Decision record(CallState<R> execution, R result, Throwable failure, Verdict verdict, long nowNanos) {
    return of(execution).record(result, failure, verdict, nowNanos);
  }

  @Override
  public CircuitBreaker.Permit circuitOpen() {
    return RefusedPermit.CIRCUIT_OPEN;
  }

  @Override
  public RuntimeException refusedFirst(RetryPolicy<?> policy, long effect) {
    return CallMachine.refusedFirst(policy, effect);
  }

  @Override
  public CircuitBreaker.Permit admit(RetryPolicy<?> policy) {
    return CallMachine.admit(policy);
  }

  @Override
  public CircuitBreaker.Permit admitRetry(CallState<?> execution) {
    return CallMachine.admit(of(execution));
  }

  @Override
  public CircuitBreaker.Permit admitHedge(CallState<?> execution) {
    return CallMachine.admitHedge(of(execution));
  }

  @Override
  public long nextHedge(RetryPolicy<?> policy, CallState<?> execution, long nowNanos) {
    return CallMachine.nextHedge(policy, of(execution), nowNanos);
  }

  @Override
  public long hedgeDue(CallState<?> execution, CircuitBreaker.Permit permit, long nowNanos) {
    return CallMachine.hedgeDue(of(execution), permit, nowNanos);
  }

  @Override
  public <R> long hedgedOutcome(CallState<R> execution, R result, Throwable failure, Verdict verdict,
      CircuitBreaker.Permit permit, long nowNanos) {
    return CallMachine.hedgedOutcome(of(execution), result, failure, verdict, permit, nowNanos);
  }

  @Override
  public <R> R hedgeWon(RetryPolicy<R> policy, CallState<R> execution, R result, int attempt,
      CircuitBreaker.Permit permit, long startNanos, long nowNanos) {
    return CallMachine.hedgeWon(policy, of(execution), result, null, attempt, permit, startNanos, nowNanos, null);
  }

  @Override
  public int hedgesStarted(CallState<?> execution) {
    return CallMachine.hedgesStarted(of(execution));
  }

  @Override
  public <R> void firstTrySucceeded(RetryPolicy<R> policy, R result, long startNanos, long nowNanos) {
    FirstAttempt.succeeded(policy, result, startNanos, nowNanos);
  }

  @Override
  public long startNanos(RetryPolicy<?> policy, NanoClock clock) {
    return CallMachine.startNanos(policy, clock);
  }

  @Override
  public long gate(RetryPolicy<?> policy, long startNanos, NanoClock clock, CircuitBreaker.Permit permit) {
    return CallMachine.firstGate(policy, startNanos, clock, permit);
  }

  @Override
  public long gateFirm(RetryPolicy<?> policy, long startNanos, NanoClock clock, CircuitBreaker.Permit permit) {
    return CallMachine.firstGate(policy, startNanos, clock, permit, false);
  }

  @Override
  public long timerFiredFirm(RetryPolicy<?> policy, CallState<?> execution, CircuitBreaker.Permit permit,
      NanoClock clock) {
    return CallMachine.timerFired(policy, of(execution), permit, clock, false);
  }

  @Override
  public long tokenWaited(RetryPolicy<?> policy, CircuitBreaker.Permit permit) {
    return CallMachine.firstTokenWaited(policy, permit);
  }

  @Override
  public <R> Verdict judge(RetryPolicy<R> policy, OutcomeJudge<R> judge, R result, Throwable failure) {
    return CallMachine.judge(policy, judge, result, failure, false);
  }

  @Override
  public <R> long firstAccepted(RetryPolicy<R> policy, R result, long startNanos, NanoClock clock,
      CircuitBreaker.Permit permit) {
    return CallMachine.firstAccepted(policy, result, null, startNanos, clock, permit, null);
  }

  @Override
  public <R> Execution<R> firstFailed(RetryPolicy<R> policy, long startNanos, long nowNanos, RandomGenerator random,
      CircuitBreaker.Permit permit) {
    return CallMachine.firstFailed(policy, startNanos, nowNanos, random, null, permit);
  }

  @Override
  public <R> long outcome(CallState<R> execution, R result, Throwable failure, Verdict verdict, long nowNanos,
      CircuitBreaker.Permit permit) {
    return CallMachine.record(of(execution), result, failure, verdict, nowNanos, permit);
  }

  @Override
  public long timerFired(RetryPolicy<?> policy, CallState<?> execution, CircuitBreaker.Permit permit,
      NanoClock clock) {
    return CallMachine.timerFired(policy, of(execution), permit, clock);
  }

  @Override
  public <R> R stop(CallState<R> execution, StopReason reason, NanoClock clock) {
    return CallMachine.stop(of(execution), reason, clock);
  }

  @Override
  public <R, T extends R> T sync(RetryExecutor<R> executor, SyncAttempt<T> attempt, OutcomeJudge<R> judge)
      throws Exception {
    return SyncLoop.call(executor, attempt, SyncLoop.HOOK, judge == OutcomeJudge.<R>policyRules() ? null : judge,
        null);
  }

  @Override
  public PolicyShapes.Exponential exponentialShape(Backoff backoff) {
    if (backoff instanceof Strategies.Exponential e) {
      return new PolicyShapes.Exponential(e.initialNanos, e.multiplier, e.capNanos, e.jitter);
    }
    if (backoff instanceof Strategies.Fixed f) {
      return new PolicyShapes.Exponential(f.delayNanos, 1, f.delayNanos, f.jitter);
    }
    return null;
  }

  @Override
  public <R> AsyncRetryExecutor<R> within(AsyncRetryExecutor<R> executor, long nanosLeft) {
    return executor.withMaxElapsedNanos(nanosLeft);
  }

  @Override
  public <R> RetryExecutor<R> within(RetryExecutor<R> executor, long nanosLeft) {
    return executor.withMaxElapsedNanos(nanosLeft);
  }

  @Override
  public PolicyShapes.Features features(RetryPolicy<?> policy) {
    return new PolicyShapes.Features(
        !policy.retryOn.isEmpty() || !policy.retryIf.isEmpty() || !policy.abortOn.isEmpty() || !policy.abortIf.isEmpty(),
        policy.retryOnResult != null, policy.classesWithBackoff.length > 0, policy.listeners.length > 0,
        policy.pushback != null);
  }

  @Override
  public PolicyShapes.GrpcThrottling grpcThrottlingShape(RetryBudget budget) {
    if (budget instanceof GrpcThrottlingBudget g) {
      return new PolicyShapes.GrpcThrottling((int) (g.maxMilliTokens() / GrpcThrottlingBudget.MILLI),
          g.milliTokenRatio() / (double) GrpcThrottlingBudget.MILLI);
    }
    return null;
  }

  @Override
  public <R, T extends R> CompletableFuture<T> async(AsyncRetryExecutor<R> executor, AsyncAttempt<T> attempt,
      OutcomeJudge<R> judge) {
    if (executor.policy.hedging != null) {
      HedgedCall<R, T> hedged = new HedgedCall<>(executor, attempt, judge, null);
      hedged.start();
      return hedged;
    }
    // The judge stays as given: in the async loop a null judge marks the executor's own Supplier.
    AsyncCall<R, T> call = new AsyncCall<>(executor, attempt, judge);
    call.start();
    return call;
  }
}
