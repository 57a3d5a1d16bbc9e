package dev.backoff;

import dev.backoff.driver.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;
import java.util.function.IntUnaryOperator;

/**
 * A driver of the {@link CallMachine} in virtual time, for its tests: it only carries out effects (an attempt
 * answers from a script, a wait moves the fake clock) and writes each one down, so that a test asserts the
 * machine's exact effect sequence. It is also the shape of any new driver: start, gate, attempt, judge,
 * record, wait, gate again, until a completion.
 */
final class VirtualTimeDriver {
  /** A scripted attempt's answer: a result (retried if it starts with "busy") or, when null, a failure. */
  interface Script {
    String answer(int attempt) throws Exception;
  }

  final List<String> trace = new ArrayList<>();
  final List<String> produced = new ArrayList<>();
  final List<String> discarded = new ArrayList<>();
  long now;
  int clockReads;
  final NanoClock clock = () -> {
    clockReads++;
    return now;
  };
  long attemptNanos;
  /** Before the wait that follows attempt {@code n}: true to cancel the call during that wait. */
  IntPredicate cancelInWait = n -> false;
  /** During the wait that follows attempt {@code n}, something else happens (a breaker tripped by others). */
  IntUnaryOperator duringWait = n -> n;
  /** At the end of a re-check's wait (the clock moved on), something else happens (other calls' responses). */
  Runnable duringRecheck = () -> {};
  String delivered;
  StopReason stopped;

  /** Runs one call and returns the trace. */
  List<String> run(RetryPolicy<String> policy, Script script) {
    long start = CallMachine.startNanos(policy, clock);
    CircuitBreaker.Permit permit = CallMachine.admit(policy);
    long effect = CallMachine.firstGate(policy, start, clock, permit);
    long wait;
    while ((wait = CallMachine.waitNanos(effect)) >= 0) {
      boolean tokenHeld = effect >= 0;
      trace.add((tokenHeld ? "wait for token " : "recheck ") + wait);
      now += wait;
      if (!tokenHeld) {
        duringRecheck.run();
      }
      permit = CallMachine.admit(policy);
      effect = tokenHeld ? CallMachine.firstTokenWaited(policy, permit)
          : CallMachine.firstGate(policy, start, clock, permit);
    }
    if (effect != CallMachine.START) {
      stopped = CallMachine.refusal(effect);
      trace.add("refused " + stopped);
      return trace;
    }
    Execution<String> execution = null;
    for (int attempt = 1; ; attempt++) {
      trace.add("attempt " + attempt);
      String result = null;
      Throwable failure = null;
      try {
        result = script.answer(attempt);
        produced.add(result);
      } catch (Exception e) {
        failure = e;
      }
      now += attemptNanos;
      Verdict verdict = CallMachine.judge(policy, null, result, failure, false);
      if (execution == null) {
        if (verdict == Verdict.ACCEPT) {
          effect = CallMachine.firstAccepted(policy, result, failure, start, clock, permit, null);
        } else {
          long failedAt = clock.nanoTime();
          execution = CallMachine.firstFailed(policy, start, failedAt, policy.random, null, permit);
          effect = CallMachine.record(execution, result, failure, verdict, failedAt, permit);
        }
      } else {
        effect = CallMachine.record(execution, result, failure, verdict, CallMachine.outcomeNanos(execution, clock),
            permit);
      }
      while ((wait = CallMachine.waitNanos(effect)) >= 0) {
        boolean recheck = CallMachine.isRecheck(effect);
        trace.add((recheck ? "recheck " : "wait ") + wait);
        if (cancelInWait.test(attempt)) {
          String held = CallMachine.stop(execution, StopReason.CANCELLED, clock);
          discard(held);
          stopped = StopReason.CANCELLED;
          trace.add("complete " + stopped);
          return trace;
        }
        duringWait.applyAsInt(attempt);
        now += wait;
        if (recheck) {
          duringRecheck.run();
        }
        permit = CallMachine.admit(policy);
        effect = CallMachine.timerFired(execution, permit, clock);
      }
      if (effect == CallMachine.SUCCEEDED) {
        delivered = result;
        trace.add("complete succeeded " + result);
        return trace;
      }
      if (effect == CallMachine.STOPPED) {
        stopped = execution.stopReason();
        delivered = execution.lastFailure() == null ? execution.lastResult() : null;
        trace.add("complete " + stopped + (delivered == null ? "" : " with " + delivered));
        return trace;
      }
      discard(execution.takeHeldResult()); // START: the retry replaces a held result
    }
  }

  private void discard(String held) {
    if (held != null) {
      discarded.add(held);
      trace.add("discard " + held);
    }
  }
}
