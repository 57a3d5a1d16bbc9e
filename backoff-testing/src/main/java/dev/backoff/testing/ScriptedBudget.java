package dev.backoff.testing;

import dev.backoff.FailureClass;
import dev.backoff.RetryBudget;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link RetryBudget} that answers {@link #tryAcquire} from a script and counts what the engine told it,
 * for tests of code that retries under a budget: {@code ScriptedBudget.refusing()} makes a retry look
 * possible until the budget is asked, {@code ScriptedBudget.answering(true, false)} grants one retry and
 * refuses the next (the last answer repeats), and {@code ScriptedBudget.counting(RetryBudgets.awsStandard())}
 * lets a real budget answer while counting what passed through it, so a test can check that the budget
 * balances. {@link #log()} lists every call in order.
 *
 * <pre>{@code
 * ScriptedBudget budget = ScriptedBudget.refusing();
 * RetryPolicy<String> policy = RetryPolicy.<String>builder().budget(budget).build();
 * // ... the call stops with StopReason.BUDGET_EXHAUSTED after its first attempt, and:
 * assertThat(budget.acquires()).isEqualTo(1);
 * }</pre>
 *
 * <p>Thread-safe: the counters and the script's position are atomic, the log is synchronized. The log keeps
 * one short string per call the engine makes, so give a test that makes millions of calls its own budget.
 */
public final class ScriptedBudget implements RetryBudget {
  private final boolean[] answers;
  private final RetryBudget delegate;
  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicInteger failures = new AtomicInteger();
  private final AtomicInteger acquires = new AtomicInteger();
  private final AtomicInteger granted = new AtomicInteger();
  private final AtomicInteger releases = new AtomicInteger();
  private final AtomicInteger successes = new AtomicInteger();
  private final AtomicInteger retriedSuccesses = new AtomicInteger();
  private final List<String> log = new ArrayList<>();

  private ScriptedBudget(boolean[] answers, RetryBudget delegate) {
    this.answers = answers;
    this.delegate = delegate;
  }

  private ScriptedBudget(boolean[] answers) {
    this(answers, null);
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

  /**
   * A budget that passes every call on to {@code delegate}, which answers {@link #tryAcquire} and owns the
   * {@link #level()}, and counts and logs them on the way.
   *
   * @throws NullPointerException if {@code delegate} is null
   */
  public static ScriptedBudget counting(RetryBudget delegate) {
    if (delegate == null) {
      throw new NullPointerException("delegate must not be null");
    }
    return new ScriptedBudget(new boolean[0], delegate);
  }

  @Override
  public void onCall() {
    calls.incrementAndGet();
    log("call");
    if (delegate != null) {
      delegate.onCall();
    }
  }

  @Override
  public void onFailure(FailureClass failureClass) {
    failures.incrementAndGet();
    log("failure " + failureClass);
    if (delegate != null) {
      delegate.onFailure(failureClass);
    }
  }

  @Override
  public boolean tryAcquire(FailureClass failureClass) {
    int asked = acquires.getAndIncrement();
    boolean answer = delegate != null ? delegate.tryAcquire(failureClass) : answers[Math.min(asked, answers.length - 1)];
    if (answer) {
      granted.incrementAndGet();
    }
    log("acquire " + failureClass + (answer ? "" : " refused"));
    return answer;
  }

  @Override
  public void release(FailureClass failureClass) {
    releases.incrementAndGet();
    log("release " + failureClass);
    if (delegate != null) {
      delegate.release(failureClass);
    }
  }

  @Override
  public void onSuccess(int retries, FailureClass lastRetryClass) {
    successes.incrementAndGet();
    if (retries > 0) {
      retriedSuccesses.incrementAndGet();
    }
    log("success " + retries + " " + lastRetryClass);
    if (delegate != null) {
      delegate.onSuccess(retries, lastRetryClass);
    }
  }

  /** The delegate's level for a {@link #counting} budget; always 0 for a scripted one, which has no level. */
  @Override
  public double level() {
    return delegate != null ? delegate.level() : 0;
  }

  private synchronized void log(String entry) {
    log.add(entry);
  }

  /**
   * Every call the engine made, in order: {@code call}, {@code failure <class>}, {@code acquire <class>}
   * (with {@code refused} appended when refused), {@code release <class>} and
   * {@code success <retries> <class of the last retry, or null>}, classes as {@link FailureClass#toString()}
   * prints them.
   */
  public synchronized List<String> log() {
    return List.copyOf(log);
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

  /** Retries granted ({@link #tryAcquire} answered true). */
  public int granted() {
    return granted.get();
  }

  /** Granted retries given back because they never started ({@link #release}). */
  public int releases() {
    return releases.get();
  }

  /** Successful calls reported ({@link #onSuccess}). */
  public int successes() {
    return successes.get();
  }

  /** Successful calls reported that had made at least one retry. */
  public int retriedSuccesses() {
    return retriedSuccesses.get();
  }

  @Override
  public String toString() {
    return delegate != null ? "ScriptedBudget counting " + delegate : "ScriptedBudget" + Arrays.toString(answers);
  }
}
