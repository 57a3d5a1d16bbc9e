package dev.backoff.sim;

import dev.backoff.Decision;
import dev.backoff.RetryBudget;
import dev.backoff.RetryPolicy;

/**
 * One run: one scenario, one policy, in virtual time. Clients drive the real core decision engine
 * ({@code policy.newExecution(start, random)}, {@code onFailure(..., now[, hint])}, {@code onResult},
 * {@code Decision.delayNanos()}); nothing here computes a backoff. Single-threaded and deterministic:
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
    while (!q.isEmpty() && q.peekTime() < untilNanos) {
      q.poll();
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
      schedule(now + scenario.timeoutNanos, TIMEOUT, attempt, 0);
    }
  }

  private void timeout(Attempt attempt, long now) {
    if (attempt.state != Attempt.PENDING) {
      return;
    }
    attempt.state = Attempt.TIMED_OUT;
    metrics.timeouts[Metrics.second(now)]++;
    fail(attempt.caller, PolicySpec.TIMEOUT, -1, now);
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
      if (caller.execution == null) {
        policy.recordFirstTrySuccess(null, caller.callStartNanos, now);
      } else {
        caller.execution.onResult(null, now);
      }
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
      caller.execution = callPolicy.newExecution(caller.callStartNanos, caller.random);
    }
    Decision decision = caller.execution.onFailure(failure, now, hintNanos);
    if (decision.isRetry()) {
      metrics.retries[Metrics.second(now)]++;
      schedule(now + decision.delayNanos(), SEND, caller, 0);
    } else {
      metrics.gaveUp[Metrics.second(now)]++;
      endCall(caller, now);
    }
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
