package dev.backoff.sim;

import dev.backoff.AdaptiveRateLimiter;
import dev.backoff.CircuitBreaker;
import dev.backoff.ConcurrencyLimiter;
import dev.backoff.Decision;
import dev.backoff.NanoClock;
import dev.backoff.Pushback;
import dev.backoff.RetryBudget;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.driver.CallState;
import dev.backoff.driver.Effect;
import dev.backoff.driver.Engine;
import dev.backoff.driver.Verdict;
import java.util.function.Function;
import java.util.random.RandomGenerator;

/**
 * One run: one scenario, one policy, in virtual time. Each call is driven by the core's call state machine
 * through the driver SPI ({@link Engine#admit} and {@link Engine#gate} before a first attempt,
 * {@link Engine#firstAccepted}, {@link Engine#firstFailed} and {@link Engine#outcome} for its outcomes,
 * {@link Engine#timerFired} when a wait is over): the machine decides (the first-attempt rule, the gate,
 * retry or stop, the wait), and the simulator carries out its {@link Effect effects}, its event queue doing
 * the waiting. It translates the server's answers into outcomes (a failure carries the server's pushback
 * hint in its verdict) and decides nothing itself; nothing here computes a backoff. (The async loop would
 * need a scheduler object per event and a future per call; the event queue already is the scheduler.)
 * Single-threaded and deterministic:
 * events are ordered by time, then by the order they were scheduled; every random number comes from
 * seeded SplitMix64 streams, one per client, so policies compared in one scenario see the same think times
 * until their behaviour diverges.
 *
 * <p>A {@code +breaker} policy drives the core's real {@link CircuitBreaker} on the virtual clock: every
 * attempt asks it for a permit first, as the core loops do, and the permit hears the attempt's outcome,
 * classified as the policy classifies it; a refused first attempt fails the call at once without
 * reaching the server, a refused retry stops the call ({@link StopReason#CIRCUIT_OPEN}), and the engine
 * itself stops a retry that would meet an open breaker before its backoff. One breaker serves the run
 * (the clients are one process's callers, as with the budget), or one per client with
 * {@code breaker-scope: per-client}.
 *
 * <p>A {@code +adaptive} policy drives the core's {@link AdaptiveRateLimiter} on the virtual clock, one per
 * run (like the budget): every attempt reserves a token just before it is sent, after the breaker's permit,
 * with {@link AdaptiveRateLimiter#reserveOrRecheck()}; a firm wait schedules the send later with the token
 * held and the permit given back (the breaker is asked again when the wait is over, as the core's loops
 * do), a wait beyond the limiter's horizon asks the whole gate again after it, and a refusal fails the call
 * like a breaker's. The engine reports each outcome to the limiter (a shed request, 429 or 503, is a
 * throttle).
 *
 * <p>A {@code +concurrency} policy attaches the core's {@link ConcurrencyLimiter} on the virtual clock, one per
 * run shared by its clients (like the budget and the rate limiter): the machine's gate asks it before every
 * attempt ({@link Engine#admit} for a first attempt or a retry, {@link Engine#admitHedge} for a hedge), after
 * the breaker and before the rate limiter; a refused first attempt fails the call at once, a refused retry
 * stops the call, a refused hedge ends the call's hedging. The limiter hears each attempt's outcome through
 * its slot (a shed request or a timeout is a drop, a success a latency sample). Its refusals, first attempts
 * and retries with hedges apart, are read from its counters once a second.
 *
 * <p>A {@code +hedge} policy feeds the core's call state machine its hedge inputs ({@link Engine#hedgeDue},
 * {@link Engine#hedgedOutcome}, {@link Engine#hedgeWon}, {@link Engine#nextHedge}) and carries out the
 * effects: a caller may have several attempts in flight; the first OK wins, the others are abandoned (the
 * server still does their work: that is hedging's load cost) and their answers ignored.
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
  static final int HEDGE = 9;
  static final int CALLER_STOPS = 10;

  final Scenario scenario;
  final PolicySpec spec;
  final Metrics metrics;
  private final EventQueue queue = new EventQueue();
  final Server server;
  private final RetryPolicy<Object> policy;
  private final RetryBudget budget;
  private final AdaptiveRateLimiter limiter; // null without +adaptive
  private final ConcurrencyLimiter concurrencyLimiter; // null without +concurrency
  private final int maxStarted; // attempts a hedged call may start; 0 without +hedge
  private int hedgesInFlight;
  /** The storm-protection series, or null when the policy uses no such mechanism. */
  final ProtectionMetrics protection;
  private final long endNanos;
  private final SplitMix64 arrivals;
  private long arrivalCount;
  private long now; // the virtual clock, read by time-based budgets
  private final NanoClock clock = () -> now; // the same, for the call state machine
  private long events;
  private long logicalRequests;
  private long calls;
  private long succeededCalls;
  private long attemptsTotal;
  private long lastHintNanos = Pushback.NONE;
  private Verdict lastVerdict = Verdict.retryable(Pushback.NONE);
  private final boolean firstRetryQuirk;
  /** The jitter source of every call, or null: each caller's own stream (a storm run). */
  private final RandomGenerator jitter;
  /** Hears how each call ended, or null (a storm run keeps nothing per call). */
  private final CallEnds ends;
  /** Whether the server's answers are judged by the policy's rules ({@link Server#judgesAnswers()}). */
  private final boolean judges;

  Simulation(Scenario scenario, PolicySpec spec) {
    this.scenario = scenario;
    this.spec = spec;
    this.endNanos = scenario.durationNanos;
    this.metrics = new Metrics(scenario.seconds());
    this.budget = spec.withBudget ? BudgetSpec.create(scenario.budget, () -> now) : null;
    this.protection = spec.breaker != null || spec.adaptive != null || spec.hedge != null || spec.concurrency != null
        ? new ProtectionMetrics(scenario.seconds()) : null;
    this.limiter = spec.adaptive == null ? null : spec.adaptive.builder().name(spec.name).clock(() -> now).build();
    this.concurrencyLimiter = spec.concurrency == null ? null
        : spec.concurrency.builder().name(spec.name).clock(() -> now).build();
    this.policy = spec.build(scenario.maxAttempts, budget,
        spec.breaker != null && !scenario.breakerPerClient ? newBreaker("") : null, limiter, concurrencyLimiter);
    this.maxStarted = maxStarted(policy);
    this.firstRetryQuirk = spec.firstRetryQuirk;
    this.jitter = null;
    this.ends = null;
    this.server = scenario.serverModel == Scenario.ServerModel.POOL
        ? new PoolServer(this, scenario, SplitMix64.stream(scenario.seed, -1))
        : new CurveServer(this, scenario);
    this.judges = false;
    this.arrivals = SplitMix64.stream(scenario.seed, -2);
  }

  /**
   * A run of a few calls of a built {@code policy} (its listeners, jitter source, result rules, breaker,
   * limiters, hedging and budget as they are) against the server {@code server} makes, whose answers the
   * policy's rules judge (see {@link Server#judgesAnswers()}), each call's end told to {@code ends}: the seam
   * through which the conformance matrix runs its rows on the simulator's own callers and event queue.
   * Start each call with {@link #call}, then {@link #loop}.
   */
  Simulation(Scenario scenario, RetryPolicy<Object> policy, Function<Simulation, Server> server, CallEnds ends) {
    this.scenario = scenario;
    this.spec = null;
    this.endNanos = scenario.durationNanos;
    this.metrics = new Metrics(scenario.seconds());
    this.budget = null;
    this.protection = new ProtectionMetrics(scenario.seconds());
    this.limiter = null;
    this.concurrencyLimiter = null;
    this.policy = policy;
    this.maxStarted = maxStarted(policy);
    this.firstRetryQuirk = false;
    this.jitter = policy.random();
    this.ends = ends;
    this.server = server.apply(this);
    this.judges = this.server.judgesAnswers();
    this.arrivals = SplitMix64.stream(scenario.seed, -2);
  }

  /** How many attempts a call of {@code policy} may start at once: 0 if it does not hedge. */
  private static int maxStarted(RetryPolicy<?> policy) {
    return policy.hedging() == null ? 0 : (int) Math.min(policy.maxAttempts(), (long) policy.hedging().maxHedges() + 1);
  }

  /** The virtual clock, in nanoseconds. */
  long now() {
    return now;
  }

  /**
   * A new open-loop call: it starts at {@code atNanos} and, if {@code stopAtNanos >= 0}, its caller stops it
   * then (cancels it). Returns the call's caller, which {@link CallEnds} names.
   */
  Caller call(long atNanos, long stopAtNanos) {
    Caller caller = new Caller(SplitMix64.stream(scenario.seed, Integer.MAX_VALUE + ++arrivalCount), false);
    if (maxStarted > 0) {
      caller.hedge = new HedgeState(maxStarted);
    }
    schedule(atNanos, SEND, caller, 0);
    if (stopAtNanos >= 0) {
      schedule(stopAtNanos, CALLER_STOPS, caller, 0);
    }
    return caller;
  }

  /** A breaker of the policy's +breaker settings on the virtual clock, its transitions in the series. */
  private CircuitBreaker newBreaker(String suffix) {
    protection.breakerAdded();
    return spec.breaker.builder().name(spec.name + suffix).clock(() -> now)
        .listener((breaker, from, to) -> protection.transition(from, to, now)).build();
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
    if (protection != null) {
      protection.sample(metrics.seconds - 1, endNanos, fillRate(), hedgesInFlight, concurrencyLimiter);
    }
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
        Caller caller = new Caller(SplitMix64.stream(scenario.seed, i), true);
        if (maxStarted > 0) {
          caller.hedge = new HedgeState(maxStarted);
        }
        if (scenario.breakerPerClient && spec.breaker != null) {
          caller.policy = spec.build(scenario.maxAttempts, budget, newBreaker("#" + i), limiter, concurrencyLimiter);
          if (spec.hedge != null && spec.hedge.adaptive() != null) { // one adaptive delay per run, as the budget
            caller.policy = caller.policy.toBuilder().hedging(policy.hedging()).build();
          }
        }
        think(caller, 0);
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
          if (protection != null) {
            protection.sample(index, now, fillRate(), hedgesInFlight, concurrencyLimiter);
          }
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
        case HEDGE:
          hedgeDue((Caller) q.target, q.datum, now);
          break;
        case CALLER_STOPS:
          callerStops((Caller) q.target, now);
          break;
        default:
          server.onEvent(q.kind, q.target, q.datum, now);
      }
    }
  }

  private double fillRate() {
    return limiter == null ? Double.NaN : limiter.fillRate();
  }

  private void think(Caller caller, long now) {
    long think = caller.exponentialNanos(scenario.thinkMeanNanos);
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
    if (maxStarted > 0) {
      caller.hedge = new HedgeState(maxStarted);
    }
    send(caller, now);
    scheduleNextArrival(now);
  }

  private void send(Caller caller, long now) {
    if (caller.stopped) {
      return; // its caller stopped the call during the wait
    }
    int second = Metrics.second(now);
    if (caller.newCall) {
      caller.newCall = false;
      caller.callStartNanos = now;
      caller.execution = null;
      metrics.newRequests[second]++;
      logicalRequests++;
      if (caller.hedge != null) {
        caller.hedge.reset();
      }
    }
    // The gate, through the call state machine: the first attempt's, the first attempt's after its wait for
    // a token, or a retry's when its wait is over.
    RetryPolicy<Object> callerPolicy = policyOf(caller);
    CallState<Object> execution = caller.execution;
    CircuitBreaker.Permit permit = execution != null ? Engine.admit(execution) : Engine.admit(callerPolicy);
    long effect;
    if (execution != null) {
      effect = Engine.timerFired(callerPolicy, execution, permit, clock);
    } else if (caller.tokenHeld) {
      caller.tokenHeld = false;
      effect = Engine.tokenWaited(callerPolicy, permit);
    } else {
      effect = Engine.gate(callerPolicy, caller.callStartNanos, clock, permit);
    }
    if (effect != Effect.START) {
      notStarted(caller, effect, now);
      return;
    }
    Attempt attempt = sendAttempt(caller, now);
    HedgeState hedge = caller.hedge;
    if (hedge == null) {
      caller.permit = permit;
    } else {
      attempt.number = 1;
      hedge.attempts[0] = attempt;
      hedge.permits[0] = permit;
      planHedge(caller, Engine.nextHedge(policyOf(caller), null, now), now);
    }
  }

  private Attempt sendAttempt(Caller caller, long now) {
    metrics.attempts[Metrics.second(now)]++;
    attemptsTotal++;
    Attempt attempt = new Attempt(caller, now);
    server.submit(attempt, now);
    if (attempt.state == Attempt.PENDING) {
      queue.scheduleInOrder(EventQueue.TIMEOUT_LANE, now + scenario.timeoutNanos, TIMEOUT, attempt, 0);
    }
    return attempt;
  }

  /**
   * The HTTP client sends a request whose connection a resuming server closed again at once, outside the
   * policy (java.net.http does so for an idempotent request): a fresh attempt with its own timeout, not
   * counted as an attempt, replaces the old one, which is void from now on. A hedged call keeps its attempt.
   */
  Attempt resend(Attempt old, long now) {
    if (old.caller.hedge != null) {
      return old;
    }
    old.state = Attempt.ABANDONED;
    Attempt fresh = new Attempt(old.caller, now);
    queue.scheduleInOrder(EventQueue.TIMEOUT_LANE, now + scenario.timeoutNanos, TIMEOUT, fresh, 0);
    return fresh;
  }

  /**
   * Carries out the call machine's hedge effect: a delay {@code >= 0} plans the caller's next hedge that far
   * from now, replacing a planned one; {@link Engine#NO_MORE_HEDGES} only voids a planned one.
   */
  private void planHedge(Caller caller, long effect, long now) {
    HedgeState hedge = caller.hedge;
    hedge.generation++;
    if (effect >= 0) {
      schedule(now + effect, HEDGE, caller, hedge.generation);
    }
  }

  /** A planned hedge falls due: the machine asks the breaker and the engine whether it starts. */
  private void hedgeDue(Caller caller, long generation, long now) {
    HedgeState hedge = caller.hedge;
    if (generation != hedge.generation) {
      return; // replaced, or the call has ended
    }
    CallState<Object> execution = execution(caller);
    CircuitBreaker.Permit permit = Engine.admitHedge(execution);
    long effect = Engine.hedgeDue(execution, permit, now);
    if (effect == Engine.HEDGE_START) {
      Attempt attempt = sendAttempt(caller, now);
      int index = Engine.hedgesStarted(execution) - 1;
      attempt.number = index + 1;
      hedge.attempts[index] = attempt;
      hedge.permits[index] = permit;
      protection.hedgesSent[Metrics.second(now)]++;
      hedgesInFlight++;
      planHedge(caller, Engine.nextHedge(execution.policy(), execution, now), now);
      return;
    }
    if (permit == Engine.CIRCUIT_OPEN) {
      protection.refused[Metrics.second(now)]++;
    }
    hedgeEffect(caller, effect, now);
  }

  /** Carries out a hedge effect other than a start: the call ends, or the next hedge is planned (or none). */
  private void hedgeEffect(Caller caller, long effect, long now) {
    if (effect == Engine.CALL_ENDED) {
      abandonHedges(caller);
      metrics.gaveUp[Metrics.second(now)]++;
      stopped(caller, caller.execution.stopReason(), now);
    } else {
      planHedge(caller, effect, now);
    }
  }

  /** Takes a hedged attempt off its call; returns its breaker permit. */
  private CircuitBreaker.Permit settle(Attempt attempt) {
    HedgeState hedge = attempt.caller.hedge;
    int index = attempt.number - 1;
    CircuitBreaker.Permit permit = hedge.permits[index];
    hedge.permits[index] = null;
    hedge.attempts[index] = null;
    if (attempt.number > 1) {
      hedgesInFlight--;
    }
    return permit;
  }

  /**
   * A hedged attempt's outcome was not accepted (an error, a shed request, a timeout, or a result the policy
   * retries): the machine decides what follows.
   */
  private void hedgedFailure(Attempt attempt, Object result, Throwable failure, Verdict verdict, long now) {
    Caller caller = attempt.caller;
    CircuitBreaker.Permit permit = settle(attempt);
    hedgeEffect(caller, Engine.hedgedOutcome(execution(caller), result, failure, verdict, permit, now), now);
  }

  /** A hedged attempt's result was accepted: it wins the call, and the others are abandoned. */
  private void hedgeWon(Attempt attempt, Object result, long now) {
    Caller caller = attempt.caller;
    CircuitBreaker.Permit permit = settle(attempt);
    Engine.hedgeWon(policyOf(caller), caller.execution, result, attempt.number, permit, caller.callStartNanos, now);
    if (attempt.number > 1) {
      protection.hedgesWon[Metrics.second(now)]++;
    }
    abandonHedges(caller);
    succeeded(caller, result, now);
  }

  /** Abandons the call's other attempts in flight (their answers are ignored) and its planned hedge. */
  private void abandonHedges(Caller caller) {
    HedgeState hedge = caller.hedge;
    for (int i = 0; i < hedge.attempts.length; i++) {
      Attempt other = hedge.attempts[i];
      if (other != null) {
        other.state = Attempt.ABANDONED;
        // As for a timeout: the server still does the work (the request keeps its place), but drops the
        // attempt, so a losing hedge is not held until its answer (which would be ignored) comes.
        server.abandon(other);
        CircuitBreaker.Permit permit = settle(other);
        if (permit != null) {
          permit.release();
        }
      }
    }
    hedge.generation++;
  }

  /** The caller's execution, created at its call's first failure or first hedge. */
  private CallState<Object> execution(Caller caller) {
    if (caller.execution == null) {
      caller.execution = Engine.newExecution(callPolicy(caller), caller.callStartNanos, jitter(caller));
    }
    return caller.execution;
  }

  /** The policy of the caller's current call: the experiment client's quirk changes its first retry. */
  private RetryPolicy<Object> callPolicy(Caller caller) {
    RetryPolicy<Object> callerPolicy = policyOf(caller);
    return firstRetryQuirk && caller.closedLoop
        ? PolicySpec.withFirstRetryAfter(callerPolicy, caller.thinkNanos)
        : callerPolicy;
  }

  /** The jitter source of the caller's calls: its own stream, or the run's (a seam run's policy's). */
  private RandomGenerator jitter(Caller caller) {
    return jitter != null ? jitter : caller;
  }

  private RetryPolicy<Object> policyOf(Caller caller) {
    return caller.policy != null ? caller.policy : policy;
  }

  /**
   * The gate did not start the caller's next attempt: it waits for the rate limiter's token (held by the call
   * meanwhile, not the breaker's permit), asks the gate again after a re-check (holding nothing), or the call
   * ended, refused (nothing is sent).
   */
  private void notStarted(Caller caller, long effect, long now) {
    if (Effect.isWait(effect)) {
      protection.limiterWaits[Metrics.second(now)]++;
      caller.tokenHeld = caller.execution == null; // a retry's execution holds its token itself
      schedule(now + effect, SEND, caller, 0);
    } else if (Effect.isRecheck(effect)) {
      schedule(now + Effect.recheckNanos(effect), SEND, caller, 0);
    } else {
      gaveUp(caller, effect, now);
    }
  }

  /**
   * The call ended without success ({@link Effect#STOPPED}, or a first attempt's {@code REFUSED_*}): counted,
   * with the breaker's ({@link StopReason#CIRCUIT_OPEN}) and the rate limiter's
   * ({@link StopReason#RATE_LIMITED}) refusals in their own series.
   */
  private void gaveUp(Caller caller, long effect, long now) {
    int second = Metrics.second(now);
    StopReason reason = effect == Effect.STOPPED ? caller.execution.stopReason() : null;
    if (effect == Effect.REFUSED_CIRCUIT_OPEN || reason == StopReason.CIRCUIT_OPEN) {
      protection.refused[second]++;
    } else if (effect == Effect.REFUSED_RATE_LIMITED || reason == StopReason.RATE_LIMITED) {
      protection.limiterRefused[second]++;
    }
    metrics.gaveUp[second]++;
    if (reason != null) {
      stopped(caller, reason, now);
    } else if (ends != null) { // a seam run's caller gets the failure a refused first attempt fails with
      ends.ended(caller, null, Engine.refusedFirst(policyOf(caller), effect), Effect.refusal(effect), now);
      endCall(caller, now);
    } else {
      endCall(caller, now);
    }
  }

  /**
   * The caller stops its call (a seam run's caller, at a virtual time), unless it has ended: the machine
   * hears the stop ({@link StopReason#CANCELLED}) if the call has an execution, its attempts in flight are
   * abandoned (the server keeps their work, as for a timeout) and events still addressed to the call do
   * nothing. A first attempt stopped before its outcome (no execution yet) tells the machine nothing, and a
   * rate-limiter token it waits for is not given back: the driver SPI has no input for either.
   */
  private void callerStops(Caller caller, long now) {
    if (caller.stopped) {
      return;
    }
    if (caller.hedge != null) {
      abandonHedges(caller);
    }
    server.callerStopped(caller);
    CircuitBreaker.Permit permit = caller.permit;
    caller.permit = null;
    if (permit != null) {
      permit.release();
    }
    if (caller.execution != null) {
      Engine.stop(caller.execution, StopReason.CANCELLED, clock);
    }
    metrics.gaveUp[Metrics.second(now)]++;
    stopped(caller, StopReason.CANCELLED, now);
  }

  private void timeout(Attempt attempt, long now) {
    if (attempt.state != Attempt.PENDING || attempt.caller.stopped) {
      return;
    }
    attempt.state = Attempt.TIMED_OUT;
    server.abandon(attempt);
    metrics.timeouts[Metrics.second(now)]++;
    Verdict verdict = judges ? Engine.judge(policyOf(attempt.caller), null, null, PolicySpec.TIMEOUT) : verdict(-1);
    if (attempt.caller.hedge != null) {
      hedgedFailure(attempt, null, PolicySpec.TIMEOUT, verdict, now);
    } else {
      fail(attempt.caller, null, PolicySpec.TIMEOUT, verdict, now);
    }
  }

  /**
   * A server refuses, resets or sheds an attempt: the client learns it after the scenario's error latency
   * (never at the same instant, or a policy without backoff could retry forever without time passing).
   */
  void deliverError(Attempt attempt, int outcome, long hintNanos, long now) {
    queue.scheduleInOrder(EventQueue.ERROR_LANE, now + scenario.errorLatencyNanos,
        outcome == Server.REJECTED ? REJECTION_ARRIVES : ERROR_ARRIVES, attempt, hintNanos);
  }

  /**
   * A server answers an attempt; answers to attempts whose client already gave up are lost. The models'
   * answers are an outcome (OK, an error, a rejection with the server's pushback hint); a server that
   * {@linkplain Server#judgesAnswers() answers with values} has them judged by the policy's rules.
   */
  void deliver(Attempt attempt, int outcome, long hintNanos, long now) {
    attempt.answeredNanos = now;
    attempt.outcome = outcome;
    Caller caller = attempt.caller;
    if (attempt.state != Attempt.PENDING || caller.stopped) {
      return;
    }
    attempt.state = Attempt.ANSWERED;
    Object result = null;
    Throwable failure = null;
    Verdict verdict;
    if (judges && (outcome == Server.OK || hintNanos < 0)) {
      result = server.result(attempt);
      failure = outcome == Server.OK ? null : server.failure(attempt, outcome);
      verdict = Engine.judge(policyOf(caller), null, result, failure);
    } else if (outcome == Server.OK) {
      verdict = Verdict.ACCEPT;
    } else {
      failure = judges ? server.failure(attempt, outcome) : outcome == Server.REJECTED ? PolicySpec.REJECTED
          : PolicySpec.ERROR;
      verdict = verdict(hintNanos);
    }
    if (verdict.isAccept()) {
      metrics.success(now, now - caller.callStartNanos);
      succeededCalls++;
      if (caller.hedge != null) {
        hedgeWon(attempt, result, now);
        return;
      }
      CircuitBreaker.Permit permit = caller.permit;
      caller.permit = null;
      if (caller.execution == null) {
        Engine.firstAccepted(policyOf(caller), result, caller.callStartNanos, clock, permit);
      } else {
        Engine.outcome(caller.execution, result, null, Verdict.ACCEPT, now, permit);
      }
      succeeded(caller, result, now);
    } else {
      metrics.errors[Metrics.second(now)]++;
      if (caller.hedge != null) {
        hedgedFailure(attempt, result, failure, verdict, now);
      } else {
        fail(caller, result, failure, verdict, now);
      }
    }
  }

  private void fail(Caller caller, Object result, Throwable failure, Verdict verdict, long now) {
    CircuitBreaker.Permit permit = caller.permit; // it hears the outcome before the engine decides
    caller.permit = null;
    CallState<Object> execution = caller.execution;
    if (execution == null) {
      execution = Engine.firstFailed(callPolicy(caller), caller.callStartNanos, now, jitter(caller), permit);
      caller.execution = execution;
    }
    long effect = Engine.outcome(execution, result, failure, verdict, now, permit);
    if (Effect.isWait(effect)) {
      metrics.retries[Metrics.second(now)]++;
      // In a lane while the retries come in time order (a constant backoff's do), else in the heap.
      queue.scheduleUsuallyInOrder(EventQueue.RETRY_LANE, now + effect, SEND, caller, 0);
    } else {
      gaveUp(caller, effect, now);
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

  /** The call succeeded with the accepted {@code result} (null for the models' answers). */
  private void succeeded(Caller caller, Object result, long now) {
    if (ends != null) {
      ends.ended(caller, result, null, null, now);
    }
    endCall(caller, now);
  }

  /**
   * The call ended without success, for {@code reason}: with its execution's held result or final failure,
   * or refused before its first attempt (no execution, nothing to deliver).
   */
  private void stopped(Caller caller, StopReason reason, long now) {
    if (ends != null) {
      CallState<Object> execution = caller.execution;
      Throwable failure = execution == null ? null : execution.finalFailure();
      ends.ended(caller, execution == null || failure != null ? null : execution.lastResult(), failure, reason, now);
    }
    endCall(caller, now);
  }

  private void endCall(Caller caller, long now) {
    calls++;
    caller.execution = null;
    if (caller.closedLoop) {
      think(caller, now);
    } else {
      caller.stopped = true; // an open-loop caller makes one call
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

  /** Hears how each call of a seam run ended (see the seam's constructor). */
  interface CallEnds {
    /**
     * {@code caller}'s call ended at {@code nowNanos}: succeeded with {@code result} ({@code reason} null), or
     * stopped for {@code reason} with its held {@code result} or final {@code failure} (the last attempt's
     * failure, the earlier ones and the history attached), or neither when no attempt ran or its caller
     * stopped it.
     */
    void ended(Caller caller, Object result, Throwable failure, StopReason reason, long nowNanos);
  }

  /** Receives the simulated seconds completed, for a progress bar. */
  interface Progress {
    void second(int completed);
  }
}
