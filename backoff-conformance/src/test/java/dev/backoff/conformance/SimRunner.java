package dev.backoff.conformance;

import dev.backoff.StopReason;
import dev.backoff.sim.SimulatedCall;
import dev.backoff.sim.SimulatedCall.Answer;
import java.util.Map;
import java.util.concurrent.CancellationException;

/**
 * The simulator ({@code backoff-sim}): the row's call is one simulated caller's call, driven by the core's call
 * state machine on the simulator's event queue, in its virtual time ({@link SimulatedCall}, from backoff-sim's
 * test-jar). Each attempt reaching the simulated server asks the trial's script: a result or an exception is
 * the server's answer, judged by the row's policy; an attempt that never completes is one the server never
 * answers. The policy's attempt timeout is the simulated client's timeout; the caller stopping the call is an
 * event at its virtual time.
 */
final class SimRunner implements DriverRunner {
  @Override
  public Outcome run(Trial trial) {
    SimulatedCall call = new SimulatedCall();
    SimulatedCall.Ending end = call.run(trial.policy(call.clock()), trial.recovery(), attempt -> {
      try {
        return Answer.value(trial.attempt());
      } catch (Trial.Hang hang) {
        return Answer.never();
      } catch (Exception failure) {
        return Answer.failure(failure);
      }
    }, trial.cancelAfter());
    for (int i = 0; i < end.neverAnsweredAbandoned(); i++) {
      trial.attemptCancelled();
    }
    if (end.reason() == null || end.result() != null) {
      return Outcome.of((String) end.result());
    }
    if (end.failure() != null) {
      return Outcome.failed(end.failure());
    }
    if (end.reason() == StopReason.CANCELLED) {
      return Outcome.failed(new CancellationException("the caller stopped the simulated call"));
    }
    throw new AssertionError("the simulated call ended " + end.reason() + " with neither a result nor a failure");
  }

  @Override
  public String name() {
    return "simulator";
  }

  @Override
  public Map<Mechanism, String> refusals() {
    return Map.of(Mechanism.RECOVERY, "the simulator cannot apply a recovery");
  }

}
