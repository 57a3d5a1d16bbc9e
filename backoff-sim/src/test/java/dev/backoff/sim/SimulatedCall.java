package dev.backoff.sim;

import dev.backoff.NanoClock;
import dev.backoff.Recovery;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test support, shipped in backoff-sim's test-jar (not its API): runs one call of a built {@link RetryPolicy}
 * (its listeners, jitter source, result and pushback rules, breaker, limiters, hedging, budget and deadline as
 * they are) on the simulator's own code path, a {@link Caller} of a {@link Simulation} whose {@link EventQueue}
 * does the waiting in virtual time, against a server answering each attempt from a {@link Script}. The
 * conformance matrix runs its rows through it. The policy's attempt timeout is the simulated client's timeout
 * of each attempt (none: the attempt is never timed out). Not thread-safe: one call per instance.
 */
public final class SimulatedCall {
  /** How long the simulation runs on after the call's start, or after its caller stops it. */
  private static final Duration HORIZON = Duration.ofHours(1);

  private Simulation simulation;
  private final NanoClock clock = () -> simulation == null ? 0 : simulation.now();

  /** The simulation's virtual clock (0 until the run starts): build the policy on it. */
  public NanoClock clock() {
    return clock;
  }

  /**
   * Runs the call: it starts at virtual time 0, its attempts answered by {@code script}; if {@code stopAt} is
   * not null its caller stops (cancels) it then. The simulation runs on for an hour after the start (or the
   * stop), so that an attempt started after the call ended would reach the script.
   *
   * @param recovery the call's recovery: must be null
   * @throws IllegalArgumentException before any attempt, if {@code recovery} is not null (a simulated caller
   *     has no fallback value) or the policy does not read {@link #clock()}
   * @throws IllegalStateException if the call had not ended an hour after its start (or its stop)
   */
  public Ending run(RetryPolicy<?> policy, Recovery<?> recovery, Script script, Duration stopAt) {
    if (recovery != null) {
      throw new IllegalArgumentException("the simulator cannot apply a recovery: a simulated call ends with its "
          + "result or failure, which the run counts; a caller has no fallback value");
    }
    if (policy.clock() != clock) {
      throw new IllegalArgumentException("policy '" + policy.name() + "' must read the simulation's clock "
          + "(SimulatedCall.clock()), not " + policy.clock());
    }
    if (simulation != null) {
      throw new IllegalStateException("a SimulatedCall runs one call");
    }
    long horizon = (stopAt == null ? 0 : stopAt.toNanos()) + HORIZON.toNanos();
    Map<String, Object> keys = new LinkedHashMap<>();
    keys.put("client", "open");
    keys.put("faults", List.of());
    keys.put("duration", (horizon / 1_000_000_000L + 2) + "s");
    keys.put("timeout", (policy.attemptTimeout() == null ? 2 * horizon : policy.attemptTimeout().toNanos()) + "ns");
    Scenario scenario = Scenario.defaults().with(keys);
    Ending[] ending = new Ending[1];
    ScriptedServer[] server = new ScriptedServer[1];
    @SuppressWarnings("unchecked")
    RetryPolicy<Object> objects = (RetryPolicy<Object>) policy;
    simulation = new Simulation(scenario, objects, run -> server[0] = new ScriptedServer(run, script),
        (caller, result, failure, reason, nowNanos) -> ending[0] = new Ending(result, failure, reason,
            Duration.ofNanos(nowNanos), 0));
    simulation.call(0, stopAt == null ? -1 : stopAt.toNanos());
    simulation.loop(horizon, null);
    if (ending[0] == null) {
      throw new IllegalStateException("the simulated call had not ended " + Duration.ofNanos(horizon)
          + " after its start");
    }
    Ending end = ending[0];
    return new Ending(end.result(), end.failure(), end.reason(), end.at(), server[0].neverAnsweredAbandoned);
  }

  /**
   * How the call ended.
   *
   * @param result the accepted result, or the held result a stopped call ends with (a result the policy
   *     retries until it stopped), else null
   * @param failure the final failure of a call that stopped after a failure (the last attempt's, with the
   *     earlier ones and the history attached), the gate's refusal for a call refused before its first
   *     attempt ({@code Engine.refusedFirst}), else null (also for a call whose caller stopped it)
   * @param reason why it stopped, or null if it succeeded
   * @param at when it ended, in virtual time from its start
   * @param neverAnsweredAbandoned how many attempts that never answer the simulator abandoned (timed out,
   *     lost to a winning hedge, or stopped with the call)
   */
  public record Ending(Object result, Throwable failure, StopReason reason, Duration at, int neverAnsweredAbandoned) {}

  /** The server's answers: called with each attempt's number (1 for the first) when it reaches the server. */
  @FunctionalInterface
  public interface Script {
    Answer answer(int attempt);
  }

  /**
   * One attempt's answer: a value or an exception, judged by the policy's rules; a status-like rejection
   * carrying the server's pushback wait (retryable, the hint the simulator's models send); or none. Answered
   * after a latency (none by default). Build it with the factories.
   *
   * @param value the attempt's result (without a failure)
   * @param failure the attempt's failure, or null
   * @param pushbackNanos the server's pushback wait of a rejection, or -1 (not a rejection)
   * @param unanswered whether the server never answers
   * @param latencyNanos how long after reaching the server the attempt is answered
   */
  public record Answer(Object value, Throwable failure, long pushbackNanos, boolean unanswered, long latencyNanos) {
    /**
     * Checks the answer.
     *
     * @throws IllegalArgumentException if the latency is negative, a pushback below -1 or without a failure,
     *     both a value and a failure, or an answer that never comes has either
     */
    public Answer {
      if (latencyNanos < 0 || pushbackNanos < -1 || (pushbackNanos >= 0 && failure == null)
          || (failure != null && value != null) || (unanswered && (value != null || failure != null))) {
        throw new IllegalArgumentException("not an answer: value " + value + ", failure " + failure + ", pushback "
            + pushbackNanos + " ns, unanswered " + unanswered + ", latency " + latencyNanos + " ns");
      }
    }

    /** The attempt returns {@code value}. */
    public static Answer value(Object value) {
      return new Answer(value, null, -1, false, 0);
    }

    /**
     * The attempt fails with {@code failure}.
     *
     * @throws NullPointerException if {@code failure} is null
     */
    public static Answer failure(Throwable failure) {
      if (failure == null) {
        throw new NullPointerException("failure must not be null");
      }
      return new Answer(null, failure, -1, false, 0);
    }

    /**
     * The server rejects the attempt with {@code failure} (a status such as 503), asking the client to wait
     * {@code pushback} before retrying: a retryable outcome with the server's hint, as the simulator's models
     * answer a shed request.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code pushback} is negative
     */
    public static Answer rejected(Throwable failure, Duration pushback) {
      if (failure == null || pushback == null) {
        throw new NullPointerException("failure and pushback must not be null");
      }
      if (pushback.isNegative()) {
        throw new IllegalArgumentException("pushback must not be negative, was " + pushback);
      }
      return new Answer(null, failure, pushback.toNanos(), false, 0);
    }

    /** The server never answers the attempt. */
    public static Answer never() {
      return new Answer(null, null, -1, true, 0);
    }

    /**
     * This answer, given {@code latency} after the attempt reached the server.
     *
     * @throws IllegalArgumentException if {@code latency} is negative
     */
    public Answer after(Duration latency) {
      if (latency.isNegative()) {
        throw new IllegalArgumentException("latency must not be negative, was " + latency);
      }
      return new Answer(value, failure, pushbackNanos, unanswered, latency.toNanos());
    }
  }

  /** A server answering each attempt from a {@link Script}, its answers judged by the call's policy. */
  private static final class ScriptedServer extends Server {
    /** Its one event: an attempt's answer is due (the simulation's own kinds are below 16). */
    private static final int ANSWER = 100;
    private final Script script;
    private final Map<Attempt, Answer> answers = new IdentityHashMap<>();
    private int attempts;
    int neverAnsweredAbandoned;

    ScriptedServer(Simulation simulation, Script script) {
      super(simulation, 0);
      this.script = script;
    }

    @Override
    boolean judgesAnswers() {
      return true;
    }

    @Override
    void accept(Attempt attempt, long now) {
      int number = ++attempts;
      Answer answer = script.answer(number);
      if (answer == null) {
        throw new NullPointerException("the script answered attempt " + number + " with null");
      }
      answers.put(attempt, answer);
      if (!answer.unanswered) {
        simulation.schedule(now + answer.latencyNanos, ANSWER, attempt, 0);
      }
    }

    @Override
    void onEvent(int kind, Object target, long datum, long now) {
      Attempt attempt = (Attempt) target;
      Answer answer = answers.get(attempt);
      if (answer.failure == null) {
        simulation.deliver(attempt, OK, -1, now);
      } else {
        simulation.deliver(attempt, answer.pushbackNanos >= 0 ? REJECTED : ERROR, answer.pushbackNanos, now);
      }
    }

    @Override
    Object result(Attempt attempt) {
      return answers.get(attempt).value;
    }

    @Override
    Throwable failure(Attempt attempt, int outcome) {
      return answers.get(attempt).failure;
    }

    @Override
    void abandon(Attempt attempt) {
      if (answers.get(attempt).unanswered) {
        neverAnsweredAbandoned++;
      }
    }

    @Override
    void callerStopped(Caller caller) {
      answers.forEach((attempt, answer) -> {
        if (attempt.caller == caller && attempt.state == Attempt.PENDING) {
          attempt.state = Attempt.ABANDONED;
          abandon(attempt);
        }
      });
    }

    @Override
    int concurrency() {
      return (int) answers.keySet().stream().filter(attempt -> attempt.state == Attempt.PENDING).count();
    }

    @Override
    long latencyNanos() {
      return 0;
    }

    @Override
    void onConditionsChanged(long now) {}

    @Override
    void clear(long now) {}

    @Override
    void onResume(long now) {}
  }
}
