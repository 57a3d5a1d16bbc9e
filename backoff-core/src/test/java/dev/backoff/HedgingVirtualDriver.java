package dev.backoff;

import dev.backoff.driver.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;

/**
 * A driver of the {@link CallMachine}'s hedge inputs in virtual time, for its tests: an event queue (attempt
 * answers, the hedge timer, things that happen at a given time) whose events it feeds to the machine, carrying
 * out the effects only (start an attempt, plan the hedge's timer, cancel attempts, discard results, complete)
 * and writing each one down with its time in milliseconds, so that a test asserts the exact effect sequence.
 * After the call completes it runs the remaining events too: a stale timer must start nothing.
 */
final class HedgingVirtualDriver {
  private static final long MS = 1_000_000;

  /** One attempt's scripted answer: after {@code nanos}, a result ("busy..." is retried) or a failure. */
  record Answer(long nanos, String result, Exception failure) {
    static Answer ok(long millis, String result) {
      return new Answer(millis * MS, result, null);
    }

    static Answer fail(long millis, Exception failure) {
      return new Answer(millis * MS, null, failure);
    }
  }

  interface Script {
    Answer answer(int attempt);
  }

  private record Event(long at, long order, int kind, int number, long generation, Runnable action)
      implements Comparable<Event> {
    @Override
    public int compareTo(Event other) {
      return at != other.at ? Long.compare(at, other.at) : Long.compare(order, other.order);
    }
  }

  private static final int ANSWER = 1;
  private static final int HEDGE_DUE = 2;
  private static final int ACTION = 3;

  /** An attempt in flight: its permit and answer. */
  private static final class Attempt {
    final int number;
    CircuitBreaker.Permit permit;
    Answer answer;
    boolean cancelled;

    Attempt(int number, CircuitBreaker.Permit permit) {
      this.number = number;
      this.permit = permit;
    }
  }

  final List<String> trace = new ArrayList<>();
  final List<String> produced = new ArrayList<>();
  final List<String> discarded = new ArrayList<>();
  long now;
  final NanoClock clock = () -> now;
  String delivered;
  StopReason stopped;
  boolean completed;
  int started;

  private final PriorityQueue<Event> events = new PriorityQueue<>();
  private final List<Attempt> attempts = new ArrayList<>();
  private long order;
  private long generation;
  private RetryPolicy<String> policy;
  private Script script;
  private Execution<String> execution;
  private long start;

  /** Runs {@code action} at {@code millis} (another call tripping a breaker, the caller cancelling...). */
  void at(long millis, Runnable action) {
    events.add(new Event(millis * MS, order++, ACTION, 0, 0, action));
  }

  /** The caller cancels the call at {@code millis}. */
  void cancelAt(long millis) {
    at(millis, this::cancel);
  }

  List<String> run(RetryPolicy<String> policy, Script script) {
    this.policy = policy;
    this.script = script;
    start = CallMachine.startNanos(policy, clock);
    CircuitBreaker.Permit permit = CallMachine.admit(policy);
    long effect = permit == CallMachine.OPEN ? CallMachine.REFUSED_CIRCUIT_OPEN
        : CallMachine.meter(policy, null, start, clock, permit);
    if (effect >= 0) {
      record("wait for token " + effect);
      now += effect;
      permit = CallMachine.admit(policy);
      effect = CallMachine.firstTokenWaited(policy, permit);
    }
    if (effect != CallMachine.START) {
      record("refused " + CallMachine.refusal(effect));
      completed = true;
      return trace;
    }
    startAttempt(1, permit);
    plan(CallMachine.nextHedge(policy, null, now));
    while (!events.isEmpty()) {
      Event event = events.poll();
      now = event.at;
      switch (event.kind) {
        case ANSWER -> answered(attempts.get(event.number - 1));
        case HEDGE_DUE -> hedgeDue(event.generation);
        default -> event.action.run();
      }
    }
    return trace;
  }

  private void record(String effect) {
    trace.add(now / MS + " " + effect);
  }

  private void startAttempt(int number, CircuitBreaker.Permit permit) {
    if (completed) {
      record("attempt " + number + " AFTER COMPLETION");
    }
    started++;
    Attempt a = new Attempt(number, permit);
    attempts.add(a);
    record("attempt " + number);
    a.answer = script.answer(number);
    events.add(new Event(now + a.answer.nanos, order++, ANSWER, number, 0, null));
  }

  /** Carries out a hedge effect: a delay plans the timer (replacing the planned one), else voids it. */
  private void plan(long effect) {
    generation++;
    if (effect >= 0) {
      record("hedge in " + effect / MS + "ms");
      events.add(new Event(now + effect, order++, HEDGE_DUE, 0, generation, null));
    } else if (effect == CallMachine.NO_MORE_HEDGES) {
      record("no more hedges" + (execution == null ? "" : " (" + CallMachine.noMoreHedges(execution) + ")"));
    }
  }

  private Execution<String> execution() {
    if (execution == null) {
      execution = CallMachine.firstFailed(policy, start, now, new SplittableRandom(1), null, null);
    }
    return execution;
  }

  private void hedgeDue(long timer) {
    if (timer != generation) {
      return; // replaced or voided
    }
    if (completed) {
      record("TIMER AFTER COMPLETION");
      return;
    }
    Execution<String> e = execution();
    CircuitBreaker.Permit permit = CallMachine.admit(policy);
    long effect = CallMachine.hedgeDue(e, permit, now);
    if (effect == CallMachine.START) {
      startAttempt(CallMachine.hedgesStarted(e), permit);
      plan(CallMachine.nextHedge(policy, e, now));
    } else if (effect >= 0) {
      record("wait for token " + effect);
      generation++;
      events.add(new Event(now + effect, order++, HEDGE_DUE, 0, generation, null));
    } else if (effect == CallMachine.STOPPED) {
      end();
    } else {
      plan(effect);
    }
  }

  private void answered(Attempt a) {
    if (a.cancelled) {
      return; // a cancelled attempt's answer never reaches the call
    }
    Answer answer = a.answer;
    if (answer.result != null) {
      produced.add(answer.result);
    }
    if (completed) {
      record("answer of attempt " + a.number + " AFTER COMPLETION");
      discard(answer.result);
      return;
    }
    CircuitBreaker.Permit permit = a.permit;
    a.permit = null;
    a.cancelled = true; // answered: no longer in flight
    Verdict verdict = CallMachine.judge(policy, null, answer.result, answer.failure, false);
    if (verdict.isAccept()) {
      discard(CallMachine.hedgeWon(policy, execution, answer.result, null, a.number, permit, start, now, null));
      record("won by attempt " + a.number);
      cancelOthers();
      complete("succeeded " + answer.result, answer.result, null);
      return;
    }
    Execution<String> e = execution();
    discard(e.takeHeldResult()); // replaced by this outcome
    long effect = CallMachine.hedgedOutcome(e, answer.result, answer.failure, verdict, permit, now);
    if (effect == CallMachine.STOPPED) {
      end();
    } else {
      plan(effect);
    }
  }

  /** The machine ended the call without success: cancel the others, then complete with the held result or failure. */
  private void end() {
    cancelOthers();
    String held = execution.takeHeldResult();
    StopReason reason = execution.stopReason();
    complete(held != null ? reason + " with " + held : String.valueOf(reason), held, reason);
  }

  private void cancel() {
    if (completed) {
      return;
    }
    discard(CallMachine.stop(execution(), StopReason.CANCELLED, clock));
    cancelOthers();
    complete("CANCELLED", null, StopReason.CANCELLED);
  }

  private void cancelOthers() {
    for (Attempt other : attempts) {
      if (!other.cancelled) {
        other.cancelled = true;
        CallMachine.release(other.permit);
        other.permit = null;
        record("cancel attempt " + other.number);
      }
    }
  }

  private void complete(String outcome, String result, StopReason reason) {
    generation++; // the timer is void
    completed = true;
    delivered = result;
    stopped = reason;
    record("complete " + outcome);
  }

  private void discard(String result) {
    if (result != null) {
      discarded.add(result);
      record("discard " + result);
    }
  }
}
