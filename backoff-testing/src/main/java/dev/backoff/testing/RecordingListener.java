package dev.backoff.testing;

import dev.backoff.RetryEvent;
import dev.backoff.RetryListener;
import dev.backoff.StopReason;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;

/**
 * A {@link RetryListener} that records every event it hears, in order, with its {@link Kind}, so a test
 * asserts what a call's listeners were told instead of writing its own listener.
 *
 * <pre>{@code
 * RecordingListener<String> listener = new RecordingListener<>();
 * RetryExecutor.of(RetryPolicy.<String>builder().listener(listener).build()).call(flaky);
 * assertThat(listener.kinds()).containsExactly(Kind.RETRY, Kind.SUCCESS);
 * assertThat(listener.summary()).containsExactly("retry 1 in PT0.1S", "success 2 ok");
 * }</pre>
 *
 * <p>Thread-safe: events may arrive on any thread; every accessor returns an immutable snapshot.
 *
 * @param <R> the result type of the calls it listens to
 */
public final class RecordingListener<R> implements RetryListener<R> {

  /** Which listener method heard an event. */
  public enum Kind {
    /** {@link RetryListener#onRetryScheduled}: a retry was scheduled. */
    RETRY,
    /** {@link RetryListener#onSuccess}: the call succeeded. */
    SUCCESS,
    /** {@link RetryListener#onExhausted}: the call ran out of retries. */
    EXHAUSTED,
    /** {@link RetryListener#onAborted}: the call was cut short. */
    ABORTED,
    /** {@link RetryListener#onHedgeSent}: a hedged call started another attempt. */
    HEDGE,
    /** {@link RetryListener#onHedgeWon}: a hedge's result won its call. */
    HEDGE_WON;

    /** True for the kinds that end a call: {@link #SUCCESS}, {@link #EXHAUSTED} and {@link #ABORTED}. */
    public boolean endsCall() {
      return this == SUCCESS || this == EXHAUSTED || this == ABORTED;
    }
  }

  /**
   * One recorded event.
   *
   * @param kind which listener method heard it, never null
   * @param event the event itself, never null
   * @param <R> the result type
   */
  public record Heard<R>(Kind kind, RetryEvent<R> event) {

    /**
     * Checks both parts.
     *
     * @throws NullPointerException if {@code kind} or {@code event} is null
     */
    public Heard {
      if (kind == null || event == null) {
        throw new NullPointerException("kind and event must not be null, were " + kind + " and " + event);
      }
    }

    /**
     * A one-line summary: {@code retry <attempts> in <delay>}, {@code success <attempts> <result>},
     * {@code exhausted <stop reason>}, {@code aborted <stop reason>}, {@code hedge <attempt>} (with
     * {@code after <failure's message>} when a failure triggered it) or {@code hedge won <attempt>}, with the delay as
     * {@link java.time.Duration#toString()} prints it ({@code PT0.1S}) and the stop reason's enum name.
     */
    public String summary() {
      return switch (kind) {
        case RETRY -> "retry " + event.attempts() + " in " + event.delay();
        case SUCCESS -> "success " + event.attempts() + " " + event.result();
        case EXHAUSTED -> "exhausted " + event.stopReason();
        case ABORTED -> "aborted " + event.stopReason();
        case HEDGE -> "hedge " + event.attempts()
            + (event.failure() == null ? "" : " after " + event.failure().getMessage());
        case HEDGE_WON -> "hedge won " + event.attempts();
      };
    }
  }

  private final List<Heard<R>> heard = new ArrayList<>();
  private final EnumSet<Kind> recorded;

  /** A listener that records every event. */
  public RecordingListener() {
    this.recorded = EnumSet.allOf(Kind.class);
  }

  private RecordingListener(EnumSet<Kind> recorded) {
    this.recorded = recorded;
  }

  /**
   * A listener that records only events of the given kinds and ignores the others, for tests that make so
   * many retries that keeping every event would cost real memory.
   *
   * @param first a kind to record
   * @param more further kinds to record
   * @param <R> the result type
   * @throws NullPointerException if a kind is null
   */
  public static <R> RecordingListener<R> only(Kind first, Kind... more) {
    if (first == null || Arrays.asList(more).contains(null)) {
      throw new NullPointerException("kinds must not be null, were " + first + " and " + Arrays.toString(more));
    }
    return new RecordingListener<>(EnumSet.of(first, more));
  }

  @Override
  public void onRetryScheduled(RetryEvent<R> event) {
    record(Kind.RETRY, event);
  }

  @Override
  public void onSuccess(RetryEvent<R> event) {
    record(Kind.SUCCESS, event);
  }

  @Override
  public void onExhausted(RetryEvent<R> event) {
    record(Kind.EXHAUSTED, event);
  }

  @Override
  public void onAborted(RetryEvent<R> event) {
    record(Kind.ABORTED, event);
  }

  @Override
  public void onHedgeSent(RetryEvent<R> event) {
    record(Kind.HEDGE, event);
  }

  @Override
  public void onHedgeWon(RetryEvent<R> event) {
    record(Kind.HEDGE_WON, event);
  }

  private synchronized void record(Kind kind, RetryEvent<R> event) {
    if (recorded.contains(kind)) {
      heard.add(new Heard<>(kind, event));
    }
  }

  /** Everything heard so far, in the order it was heard. */
  public synchronized List<Heard<R>> heard() {
    return List.copyOf(heard);
  }

  /** The kinds of everything heard so far, in order. */
  public synchronized List<Kind> kinds() {
    return heard.stream().map(Heard::kind).toList();
  }

  /** Every event heard so far, in order. */
  public synchronized List<RetryEvent<R>> events() {
    return heard.stream().map(Heard::event).toList();
  }

  /**
   * The events of one kind heard so far, in order.
   *
   * @throws NullPointerException if {@code kind} is null
   */
  public synchronized List<RetryEvent<R>> events(Kind kind) {
    if (kind == null) {
      throw new NullPointerException("kind must not be null");
    }
    return heard.stream().filter(h -> h.kind() == kind).map(Heard::event).toList();
  }

  /** The {@link Heard#summary() summaries} of everything heard so far, in order. */
  public synchronized List<String> summary() {
    return heard.stream().map(Heard::summary).toList();
  }

  /** The stop reasons of the calls that ended exhausted or aborted, in order (successes have none). */
  public synchronized List<StopReason> stopReasons() {
    return heard.stream().filter(h -> h.kind() == Kind.EXHAUSTED || h.kind() == Kind.ABORTED)
        .map(h -> h.event().stopReason()).toList();
  }

  /** How many calls have ended (success, exhausted or aborted events heard). */
  public synchronized int endings() {
    return (int) heard.stream().filter(h -> h.kind().endsCall()).count();
  }

  /**
   * The last event heard.
   *
   * @throws IllegalStateException if nothing has been heard yet
   */
  public synchronized RetryEvent<R> last() {
    if (heard.isEmpty()) {
      throw new IllegalStateException("no event heard yet");
    }
    return heard.get(heard.size() - 1).event();
  }

  /** Forgets everything heard so far. */
  public synchronized void clear() {
    heard.clear();
  }

  @Override
  public synchronized String toString() {
    return "RecordingListener" + summary();
  }
}
