package dev.backoff.testing;

import dev.backoff.FailureClass;
import dev.backoff.RetryBudget;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link RetryBudget} that answers {@link #tryAcquire} from a script and counts what the engine told it,
 * for tests of code that retries under a budget: {@code ScriptedBudget.refusing()} makes a retry look
 * possible until the budget is asked, {@code ScriptedBudget.answering(true, false)} grants one retry and
 * refuses the next (the last answer repeats).
 *
 * <pre>{@code
 * ScriptedBudget budget = ScriptedBudget.refusing();
 * RetryPolicy<String> policy = RetryPolicy.<String>builder().budget(budget).build();
 * // ... the call stops with StopReason.BUDGET_EXHAUSTED after its first attempt, and:
 * assertThat(budget.acquires()).isEqualTo(1);
 * }</pre>
 *
 * <p>Thread-safe: the counters and the script's position are atomic.
 */
public final class ScriptedBudget implements RetryBudget {
  private final boolean[] answers;
  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicInteger failures = new AtomicInteger();
  private final AtomicInteger acquires = new AtomicInteger();
  private final AtomicInteger releases = new AtomicInteger();
  private final AtomicInteger successes = new AtomicInteger();

  private ScriptedBudget(boolean[] answers) {
    this.answers = answers;
  }

  /** A budget that refuses every retry. */
  public static ScriptedBudget refusing() {
    return new ScriptedBudget(new boolean[] {false});
  }

  /** A budget that grants every retry. */
  public static ScriptedBudget granting() {
    return new ScriptedBudget(new boolean[] {true});
  }

  /**
   * A budget that answers the retries it is asked for with these answers in turn, the last one repeating.
   *
   * @throws IllegalArgumentException if no answer is given
   */
  public static ScriptedBudget answering(boolean... answers) {
    if (answers.length == 0) {
      throw new IllegalArgumentException("answers must not be empty");
    }
    return new ScriptedBudget(answers.clone());
  }

  @Override
  public void onCall() {
    calls.incrementAndGet();
  }

  @Override
  public void onFailure(FailureClass failureClass) {
    failures.incrementAndGet();
  }

  @Override
  public boolean tryAcquire(FailureClass failureClass) {
    int asked = acquires.getAndIncrement();
    return answers[Math.min(asked, answers.length - 1)];
  }

  @Override
  public void release(FailureClass failureClass) {
    releases.incrementAndGet();
  }

  @Override
  public void onSuccess(int retries, FailureClass lastRetryClass) {
    successes.incrementAndGet();
  }

  /** Always 0: a scripted budget has no level. */
  @Override
  public double level() {
    return 0;
  }

  /** Calls started ({@link #onCall}). */
  public int calls() {
    return calls.get();
  }

  /** Retryable failures reported ({@link #onFailure}). */
  public int failures() {
    return failures.get();
  }

  /** Retries asked for ({@link #tryAcquire}), granted or not. */
  public int acquires() {
    return acquires.get();
  }

  /** Granted retries given back because they never started ({@link #release}). */
  public int releases() {
    return releases.get();
  }

  /** Successful calls reported ({@link #onSuccess}). */
  public int successes() {
    return successes.get();
  }

  @Override
  public String toString() {
    return "ScriptedBudget" + Arrays.toString(answers);
  }
}
