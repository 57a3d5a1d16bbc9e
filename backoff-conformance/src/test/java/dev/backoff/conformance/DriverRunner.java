package dev.backoff.conformance;

import dev.backoff.RetryHistory;
import dev.backoff.StopReason;
import java.time.Duration;
import java.util.Map;

/**
 * Runs one {@link Trial} of the {@link ConformanceTable} through one driver. A runner is all a new driver
 * needs to join the table (see the table's documentation).
 */
public interface DriverRunner {
  /** Why Reactor's operators have no recovery: a Mono or Flux recovers with its own operators. */
  String NO_RECOVERY_REACTOR = "no recovery parameter: a Mono or Flux recovers with onErrorResume";
  /** Why the Kotlin driver has no recovery: a coroutine recovers with try/catch (a flow with catch). */
  String NO_RECOVERY_KOTLIN = "no recovery parameter: a coroutine recovers with try/catch, a flow with catch";
  /** The driver's name, shown in test names. */
  String name();

  /**
   * The stop reason listeners hear when the caller stops a call mid-backoff: {@link StopReason#CANCELLED}
   * for drivers whose calls are cancelled (futures, subscriptions, coroutines), {@link StopReason#INTERRUPTED}
   * for the blocking executor, whose caller interrupts its thread.
   */
  default StopReason callerStop() {
    return StopReason.CANCELLED;
  }

  /**
   * The stop reason of the row that aborts: {@link StopReason#ABORTED} where the script's exception reaches
   * the policy's abort rule; gRPC receives it as a status outside its retryable set ({@code INVALID_ARGUMENT})
   * and stops with {@link StopReason#NOT_RETRYABLE}; HTTP's rules accept a 400 as the call's final response
   * (null: listeners hear a success, and the caller gets that response).
   */
  default StopReason abortStop() {
    return StopReason.ABORTED;
  }

  /**
   * Whether the driver applies the policy's result rules: false for drivers of streams (a Flux, a Flow),
   * which have no single result to judge; they skip the rows that need them.
   */
  default boolean judgesResults() {
    return true;
  }

  /**
   * The mechanisms this driver refuses when its call is built (or, where the refusal is the core's, when the
   * call starts), each with a part of the refusal's message: the matrix asserts that the driver throws it
   * before any attempt, instead of running the mechanism's rows.
   */
  default Map<Mechanism, String> refusals() {
    return Map.of();
  }

  /**
   * The mechanisms this driver's API has no way to ask for (so nothing to refuse), each with why: the matrix
   * lists them as "not offered".
   */
  default Map<Mechanism, String> notOffered() {
    return Map.of();
  }

  /**
   * Whether the driver runs on the trial's virtual time: true, and the waits between attempts must be exact;
   * false (a client on real sockets and real timers), and each wait must be at least the expected one.
   */
  default boolean virtualTime() {
    return true;
  }

  /**
   * The granularity of the driver's timers: a wait is rounded up to a whole multiple of it (coroutines'
   * {@code delay} waits whole milliseconds). The table's expected waits are rounded up the same way.
   */
  default Duration timerResolution() {
    return Duration.ofNanos(1);
  }

  /**
   * Whether the runner sees the driver cancel an attempt that never completes ({@link Trial#attemptCancelled()});
   * false for a client on a real socket, whose server cannot tell reliably that the client gave up.
   */
  default boolean seesCancelledAttempts() {
    return true;
  }

  /**
   * Rows this driver disagrees on with the engine, by row name, each with why: a bug found by the matrix and
   * not fixed yet. Their cells are skipped with the reason (as {@code @Disabled} would), and the generated
   * matrix shows them. By default the engine's own ({@link ConformanceTable#engineDisagreements()}), which every
   * driver shares.
   */
  default Map<String, String> knownDisagreements() {
    return ConformanceTable.engineDisagreements();
  }

  /**
   * Whether the caller's failure is the last attempt's exception (carrying the earlier ones and the history
   * as suppressed exceptions); false for HTTP adapters, whose caller gets the last response.
   */
  default boolean failsWithHistory() {
    return true;
  }

  /** The message the caller's failure carries (for a gRPC status: its description). */
  default String failureMessage(Throwable failure) {
    return failure.getMessage();
  }

  /** The history attached to the caller's failure, or null. */
  default RetryHistory history(Throwable failure) {
    return RetryHistory.of(failure);
  }

  /** The exceptions attached to the caller's failure: the earlier attempts' failures and the history. */
  default Throwable[] earlierFailures(Throwable failure) {
    return failure.getSuppressed();
  }

  /**
   * Runs the trial's call to its end: builds the policy with {@link Trial#policy} on the driver's (virtual)
   * clock, makes each attempt call {@link Trial#attempt()}, waits in the driver's virtual time, and, when
   * {@link Trial#cancelAfter()} is set, stops the call as its caller would at that time, then lets an hour
   * more pass so that a retry the driver failed to cancel would show.
   *
   * @return the call's result or failure (neither when the caller stopped it and the driver reports nothing)
   */
  Outcome run(Trial trial) throws Exception;

  /** What the caller saw. */
  record Outcome(String result, Throwable failure) {
    /** A result. */
    public static Outcome of(String result) {
      return new Outcome(result, null);
    }

    /** A failure. */
    public static Outcome failed(Throwable failure) {
      return new Outcome(null, failure);
    }
  }
}
