package dev.backoff.sim;

import dev.backoff.Decision;
import dev.backoff.Pushback;
import dev.backoff.RetryBudget;
import dev.backoff.RetryPolicy;
import dev.backoff.driver.Engine;
import dev.backoff.driver.Verdict;

/**
 * One run: one scenario, one policy, in virtual time. Clients drive the real core decision engine through
 * the driver SPI's entry points ({@link Engine#succeeded}, {@link Engine#newExecution}, {@link Engine#record}
 * with the server's pushback hint, {@code Decision.delayNanos()}), which also apply the first-attempt rule;
 * nothing here computes a backoff. (The async loop would need a scheduler object per event and a future per
 * call; the event queue already is the scheduler.) Single-threaded and deterministic:
 * events are ordered by time, then by the order they were scheduled; every random number comes from
 * seeded SplitMix64 streams, one per client, so policies compared in one scenario see the same think times
 * until their behaviour diverges.
 */
final class Simulation {
  private static final long SECOND = 1_000_000_000L;
  static final int SEND = 1;
  static final int TIMEOUT = 2;
  static final int SAMPLE = 3;
  static final int FAULT_START = 4;
  static final int FAULT_END = 5;
  static final int ARRIVAL = 6;
  static final int ERROR_ARRIVES = 7;
  static final int REJECTION_ARRIVES = 8;

  final Scenario scenario;
  final PolicySpec spec;
  final Metrics metrics;
  private final EventQueue queue = new EventQueue();
  final Server server;
  private final RetryPolicy<Object> policy;
  private final RetryBudget budget;
  private final long endNanos;
  private final SplitMix64 arrivals;
  private long arrivalCount;
  private long now; // the virtual clock, read by time-based budgets
  private long events;
  private long logicalRequests;
  private long calls;
  private long succeededCalls;
  private long attemptsTotal;
  private long lastHintNanos = Pushback.NONE;
  private Verdict lastVerdict = Verdict.retryable(Pushback.NONE);

  Simulation(Scenario scenario, PolicySpec spec) {
    this.scenario = scenario;
    this.spec = spec;
    this.endNanos = scenario.durationNanos;
    this.metrics = new Metrics(scenario.seconds());
    this.budget = spec.withBudget ? BudgetSpec.create(scenario.budget, () -> now) : null;
    this.policy = spec.build(scenario.maxAttempts, budget);
    this.server = scenario.serverModel == Scenario.ServerModel.POOL
        ? new PoolServer(this, scenario, SplitMix64.stream(scenario.seed, -1))
        : new CurveServer(this, scenario);
    this.arrivals = SplitMix64.stream(scenario.seed, -2);
  }

  void schedule(long at, int kind, Object target, long datum) {
    queue.schedule(at, kind, target, datum);
  }

  /** Schedules an event a fixed delay after now (kept in order, so it skips the heap). */
  void scheduleTick(long at, Object target, long datum) {
    queue.scheduleInOrder(EventQueue.TICK_LANE, at, CurveServer.TICK, target, datum);
  }

  /** Runs to the end of the scenario; returns the number of events processed. */
  long run(Progress progress) {
    start();
    loop(endNanos, progress);
    // The last second's sample, at the end of the run.
    metrics.sample(metrics.seconds - 1, server.concurrency(), server.latencyNanos(),
        budget == null ? Double.NaN : budget.level());
    if (progress != null) {
      progress.second(metrics.seconds);
    }
    return events;
  }

  /** Schedules the samples, faults and the clients' (or arrivals') first events. */
  void start() {
    for (int second = 1; second < metrics.seconds; second++) {
      schedule(second * SECOND, SAMPLE, null, second - 1);
    }
    for (Fault fault : scenario.faults) {
      schedule(fault.atNanos, FAULT_START, fault, 0);
      schedule(fault.endNanos(), FAULT_END, fault, 0);
    }
    if (scenario.closedLoop) {
      for (int i = 0; i < scenario.clients; i++) {
        think(new Caller(SplitMix64.stream(scenario.seed, i), true), 0);
      }
    } else {
      scheduleNextArrival(0);
    }
  }

  /** Processes the events before {@code untilNanos}. */
  void loop(long untilNanos, Progress progress) {
    EventQueue q = queue;
    while (q.pollBefore(untilNanos)) {
      events++;
      long now = q.time;
      this.now = now;
      switch (q.kind) {
        case SEND:
          send((Caller) q.target, now);
          break;
        case TIMEOUT:
          timeout((Attempt) q.target, now);
          break;
        case SAMPLE:
          int index = (int) q.datum;
          metrics.sample(index, server.concurrency(), server.latencyNanos(), budget == null ? Double.NaN : budget.level());
          if (progress != null) {
            progress.second(index + 1);
          }
          break;
        case FAULT_START:
          faultStart((Fault) q.target, now);
          break;
        case FAULT_END:
          faultEnd((Fault) q.target, now);
          break;
        case ARRIVAL:
          arrival(now);
          break;
        case ERROR_ARRIVES:
          deliver((Attempt) q.target, Server.ERROR, -1, now);
          break;
        case REJECTION_ARRIVES:
          deliver((Attempt) q.target, Server.REJECTED, q.datum, now);
          break;
        default:
          server.onEvent(q.kind, q.target, q.datum, now);
      }
    }
  }

  private void think(Caller caller, long now) {
    long think = caller.random.exponentialNanos(scenario.thinkMeanNanos);
    caller.thinkNanos = think;
    caller.newCall = true;
    schedule(now + think, SEND, caller, 0);
  }

  private void scheduleNextArrival(long now) {
    // Thinning (Lewis and Shedler): candidates at the peak rate, each kept with probability rate(t)/peak.
    RateProfile profile = scenario.rateProfile;
    double peak = profile.maxRate();
    if (peak <= 0) {
      return;
    }
    long t = now;
    while (true) {
      t += arrivals.exponentialNanos((long) (SECOND / peak));
      if (t > endNanos) {
        return;
      }
      if (arrivals.nextDouble() * peak < profile.rateAt(t)) {
        schedule(t, ARRIVAL, null, 0);
        return;
      }
    }
  }

  private void arrival(long now) {
    Caller caller = new Caller(SplitMix64.stream(scenario.seed, Integer.MAX_VALUE + ++arrivalCount), false);
    send(caller, now);
    scheduleNextArrival(now);
  }

  private void send(Caller caller, long now) {
    int second = Metrics.second(now);
    if (caller.newCall) {
      caller.newCall = false;
      caller.callStartNanos = now;
      caller.execution = null;
      metrics.newRequests[second]++;
      logicalRequests++;
    }
    metrics.attempts[second]++;
    attemptsTotal++;
    Attempt attempt = new Attempt(caller, now);
    server.submit(attempt, now);
    if (attempt.state == Attempt.PENDING) {
      queue.scheduleInOrder(EventQueue.TIMEOUT_LANE, now + scenario.timeoutNanos, TIMEOUT, attempt, 0);
    }
  }

  private void timeout(Attempt attempt, long now) {
    if (attempt.state != Attempt.PENDING) {
      return;
    }
    attempt.state = Attempt.TIMED_OUT;
    server.abandon(attempt);
    metrics.timeouts[Metrics.second(now)]++;
    fail(attempt.caller, PolicySpec.TIMEOUT, -1, now);
  }

  /**
   * A server refuses, resets or sheds an attempt: the client learns it after the scenario's error latency
   * (never at the same instant, or a policy without backoff could retry forever without time passing).
   */
  void deliverError(Attempt attempt, int outcome, long hintNanos, long now) {
    queue.scheduleInOrder(EventQueue.ERROR_LANE, now + scenario.errorLatencyNanos,
        outcome == Server.REJECTED ? REJECTION_ARRIVES : ERROR_ARRIVES, attempt, hintNanos);
  }

  /** A server answers an attempt; answers to attempts whose client already gave up are lost. */
  void deliver(Attempt attempt, int outcome, long hintNanos, long now) {
    attempt.answeredNanos = now;
    attempt.outcome = outcome;
    if (attempt.state != Attempt.PENDING) {
      return;
    }
    attempt.state = Attempt.ANSWERED;
    Caller caller = attempt.caller;
    if (outcome == Server.OK) {
      metrics.success(now, now - caller.callStartNanos);
      succeededCalls++;
      Engine.succeeded(policy, caller.execution, null, caller.callStartNanos, now);
      endCall(caller, now);
    } else {
      metrics.errors[Metrics.second(now)]++;
      fail(caller, outcome == Server.REJECTED ? PolicySpec.REJECTED : PolicySpec.ERROR, hintNanos, now);
    }
  }

  private void fail(Caller caller, Throwable failure, long hintNanos, long now) {
    if (caller.execution == null) {
      RetryPolicy<Object> callPolicy = spec.firstRetryQuirk && caller.closedLoop
          ? PolicySpec.withFirstRetryAfter(policy, caller.thinkNanos)
          : policy;
      caller.execution = Engine.newExecution(callPolicy, caller.callStartNanos, caller.random);
    }
    Decision decision = Engine.record(caller.execution, null, failure, verdict(hintNanos), now);
    if (decision.isRetry()) {
      metrics.retries[Metrics.second(now)]++;
      schedule(now + decision.delayNanos(), SEND, caller, 0);
    } else {
      metrics.gaveUp[Metrics.second(now)]++;
      endCall(caller, now);
    }
  }

  /** The verdict for a failure with this hint; a scenario has one Retry-After, so one cached verdict. */
  private Verdict verdict(long hintNanos) {
    if (hintNanos != lastHintNanos) {
      lastVerdict = Verdict.retryable(hintNanos);
      lastHintNanos = hintNanos;
    }
    return lastVerdict;
  }

  private void endCall(Caller caller, long now) {
    calls++;
    caller.execution = null;
    if (caller.closedLoop) {
      think(caller, now);
    }
  }

  private void faultStart(Fault fault, long now) {
    switch (fault.type) {
      case PAUSE:
        server.pause(now);
        break;
      case CRASH:
        server.crash(now);
        break;
      case CAPACITY:
        server.setCapacity(fault.value, now);
        break;
      case LATENCY:
        server.setAddedLatency((long) fault.value, now);
        break;
      default:
        throw new AssertionError(fault.type);
    }
  }

  private void faultEnd(Fault fault, long now) {
    switch (fault.type) {
      case PAUSE:
        server.resume(now);
        break;
      case CRASH:
        server.restart(now);
        break;
      case CAPACITY:
        server.setCapacity(1, now);
        break;
      case LATENCY:
        server.setAddedLatency(0, now);
        break;
      default:
        throw new AssertionError(fault.type);
    }
  }

  long logicalRequests() {
    return logicalRequests;
  }

  long succeededCalls() {
    return succeededCalls;
  }

  long attempts() {
    return attemptsTotal;
  }

  long events() {
    return events;
  }

  /** Receives the simulated seconds completed, for a progress bar. */
  interface Progress {
    void second(int completed);
  }
}
