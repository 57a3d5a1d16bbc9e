package dev.backoff.sim;

import dev.backoff.Decision;
import dev.backoff.RetryPolicy;
import dev.backoff.driver.CallState;
import dev.backoff.driver.Engine;
import dev.backoff.driver.Verdict;

/**
 * How much heap a run can need, estimated before it starts from what grows: the requests a storm leaves in
 * the server (every abandoned attempt stays until it completes, and in a storm nothing completes), the
 * open-loop callers still retrying, the clients, and the per-second series. The in-flight estimate is the
 * worst case of a server that stops answering: each caller's attempts are replayed through the real policy
 * (its own backoff, attempt limit and deadline, budgets left out), each ending in a timeout. On the retry-storm experiment's
 * storm this is about 1.3 times what the run really holds (190 against 148 abandoned requests per client).
 *
 * <p>The byte costs were measured on JDK 17 with compressed pointers (a class histogram of a 20 000-client
 * storm holding 3.3 million abandoned requests: 12.0 bytes per request held by a knee or linear server; an
 * attempt with its place in a pool server 64 to 90 bytes, 141 with polling; per client its caller, random
 * stream, execution, pending attempt and event entries, 232 to 290 bytes, since less by about 30: the caller
 * is its own random stream and an attempt 8 bytes smaller, while a calendar bucket's node is 8 bytes larger
 * than a heap entry); they are rounded up.
 * {@code MemoryEstimateTest} runs a storm in a forked JVM given only the heap this estimate asks for, and
 * checks what the run really retains against the estimate.
 *
 * <p>Stateless and thread-safe.
 */
final class MemoryEstimate {
  /** A request held by a knee or linear server in exact mode: its start time and an empty slot ({@link ServiceRing}). */
  static final long BYTES_PER_HELD_REQUEST = 16;
  /** A request held by a pool server (the attempt object itself, in its queue). */
  static final long BYTES_PER_ATTEMPT = 96;
  /** A request held by a knee or linear server that polls (the attempt, its tick and its set entry). */
  static final long BYTES_PER_POLLED_ATTEMPT = 160;
  static final long BYTES_PER_CLIENT = 300;
  static final long BYTES_PER_CALLER = 250;
  /**
   * A client's own breaker and policy ({@code breaker-scope: per-client}), besides 4 bytes per call of a
   * count window: measured with the allocation counter at 1336 bytes for a 20-call window
   * (BreakerSimulationTest checks the bound).
   */
  static final long BYTES_PER_CLIENT_BREAKER = 1400;
  static final long BYTES_PER_SECOND = 128; // the per-second series of one policy's result
  /** A knee or linear server's table of its latency curve: up to 2^20 longs, and the copy while it grows. */
  static final long LATENCY_TABLE_BYTES = 3L << 22;
  /** The share of the heap a run may plan to use: the rest is headroom for the collector and garbage. */
  static final double USABLE_HEAP = 0.7;
  /** Beyond this many replayed attempts, extrapolate (pessimistically: delays only grow) instead of replaying. */
  private static final int MAX_REPLAYED = 2_000_000;
  private static final long SECOND = 1_000_000_000L;

  private MemoryEstimate() {}

  /** The heap the run may plan to use. */
  static long usableBytes() {
    return (long) (Runtime.getRuntime().maxMemory() * USABLE_HEAP);
  }

  /**
   * Refuses a run whose worst case cannot fit in this JVM's heap.
   *
   * @throws ScenarioException naming {@code clients} (closed loop) or {@code rate} (open loop), the estimate,
   *     the heap available and how to raise it
   */
  static void check(Scenario scenario) {
    long usable = usableBytes();
    long worst = 0;
    String worstPolicy = null;
    long worstInFlight = 0;
    for (PolicySpec spec : scenario.policies) {
      long[] estimate = estimate(scenario, spec);
      if (estimate[0] > worst) {
        worst = estimate[0];
        worstPolicy = spec.name;
        worstInFlight = estimate[1];
      }
    }
    // Results of every policy are kept until the output is written.
    long series = (long) scenario.seconds() * BYTES_PER_SECOND * scenario.policies.size();
    long total = saturatedAdd(worst, series);
    if (total > usable) {
      long max = Runtime.getRuntime().maxMemory();
      long neededHeap = (long) Math.ceil(total / USABLE_HEAP);
      String what = scenario.closedLoop
          ? scenario.clients + " clients"
          : "an arrival rate of " + scenario.textOf("rate") + "/s";
      String inFlight = worstInFlight > 0
          ? " (policy " + worstPolicy + ": up to " + worstInFlight + " requests left in a server that stops answering)"
          : "";
      throw new ScenarioException(scenario.closedLoop ? "clients" : "rate", what + " over " + scenario.textOf("duration")
          + " may need about " + mebibytes(total) + " MiB of heap" + inFlight + ", more than this JVM can give a run ("
          + mebibytes(usable) + " of " + mebibytes(max) + " MiB); use fewer clients, a lower rate or a shorter "
          + "duration, or raise the heap: BACKOFF_JAVA_OPTS=-Xmx" + gibibytes(neededHeap) + "g");
    }
  }

  /** {bytes, in-flight requests} of one policy's run. */
  static long[] estimate(Scenario s, PolicySpec spec) {
    RetryPolicy<Object> policy = spec.build(s.maxAttempts, null, null);
    boolean bounded = s.serverModel == Scenario.ServerModel.POOL;
    long serverBound = bounded ? (long) s.workers + s.queueSize + s.backlog : Long.MAX_VALUE;
    long perAttempt = bounded ? BYTES_PER_ATTEMPT
        : s.recheckNanos > 0 ? BYTES_PER_POLLED_ATTEMPT : BYTES_PER_HELD_REQUEST;
    long serverBytes = bounded ? 0 : LATENCY_TABLE_BYTES;
    long inFlight;
    long callerBytes;
    if (s.closedLoop) {
      callerBytes = BYTES_PER_CLIENT * s.clients;
      if (s.breakerPerClient && spec.breaker != null) {
        callerBytes = saturatedAdd(callerBytes, saturatedMultiply(s.clients, breakerBytes(spec)));
      }
      long perClient = closedLoopAttempts(s, policy);
      if (spec.hedge != null) {
        perClient = saturatedMultiply(perClient, spec.hedge.maxHedges() + 1L); // each call may have all in flight
      }
      inFlight = Math.min(serverBound, saturatedMultiply(perClient, s.clients));
    } else {
      Call call = deadCall(s, policy);
      // Callers still in a call: all arrivals if calls outlast the run, else those of one call's length.
      double callers = call.endNanos >= s.durationNanos
          ? arrivals(s.rateProfile, s.durationNanos)
          : Math.min(arrivals(s.rateProfile, s.durationNanos), s.rateProfile.maxRate() * call.endNanos / (double) SECOND);
      callerBytes = saturated(callers * BYTES_PER_CALLER);
      inFlight = Math.min(serverBound, saturated(call.retained * (spec.hedge == null ? 1.0 : spec.hedge.maxHedges() + 1.0)));
    }
    return new long[] {saturatedAdd(saturatedAdd(callerBytes, serverBytes), saturatedMultiply(inFlight, perAttempt)),
        inFlight};
  }

  /** The bytes of one client's own breaker and policy. */
  static long breakerBytes(PolicySpec spec) {
    return BYTES_PER_CLIENT_BREAKER + 4L * spec.breaker.windowCalls();
  }

  /** Attempts one closed-loop client sends over the run if no attempt is ever answered. */
  private static long closedLoopAttempts(Scenario s, RetryPolicy<Object> policy) {
    SplitMix64 random = SplitMix64.stream(s.seed, 0);
    long t = s.thinkMeanNanos;
    long attempts = 0;
    while (t < s.durationNanos) {
      CallState<Object> execution = Engine.newExecution(policy, t, random);
      while (t < s.durationNanos) {
        attempts++;
        if (attempts == MAX_REPLAYED) {
          return extrapolate(attempts, t, s.durationNanos);
        }
        t = saturatedAdd(t, s.timeoutNanos);
        Decision decision = Engine.record(execution, null, PolicySpec.TIMEOUT, Verdict.RETRYABLE, t);
        if (!decision.isRetry()) {
          break;
        }
        t = saturatedAdd(t, decision.delayNanos());
      }
      t = saturatedAdd(t, s.thinkMeanNanos);
    }
    return attempts;
  }

  /** One open-loop call against a server that never answers. */
  private record Call(long endNanos, double retained) {}

  /**
   * Replays one call from time 0; an attempt at {@code t} into the call is held by the server for every
   * caller that arrived before {@code duration - t}, so the run retains the sum of those arrivals.
   */
  private static Call deadCall(Scenario s, RetryPolicy<Object> policy) {
    SplitMix64 random = SplitMix64.stream(s.seed, Integer.MAX_VALUE + 1L);
    CallState<Object> execution = Engine.newExecution(policy, 0, random);
    long t = 0;
    double retained = 0;
    long attempts = 0;
    while (t < s.durationNanos) {
      retained += arrivals(s.rateProfile, s.durationNanos - t);
      attempts++;
      if (attempts == MAX_REPLAYED) {
        return new Call(s.durationNanos, retained * (s.durationNanos / (double) Math.max(1, t)));
      }
      t = saturatedAdd(t, s.timeoutNanos);
      Decision decision = Engine.record(execution, null, PolicySpec.TIMEOUT, Verdict.RETRYABLE, t);
      if (!decision.isRetry()) {
        return new Call(t, retained);
      }
      t = saturatedAdd(t, decision.delayNanos());
    }
    return new Call(s.durationNanos, retained);
  }

  /** Expected arrivals in {@code [0, nanos)} under the rate profile. */
  static double arrivals(RateProfile profile, long nanos) {
    double x = nanos / (double) SECOND;
    double at = profile.atNanos / (double) SECOND;
    double length = profile.lengthNanos / (double) SECOND;
    switch (profile.shape) {
      case CONSTANT:
        return profile.rate * x;
      case STEP:
        return profile.rate * Math.min(x, at) + profile.peak * Math.max(0, x - at);
      case SPIKE:
        return profile.rate * x + (profile.peak - profile.rate) * Math.max(0, Math.min(x, at + length) - at);
      case RAMP: {
        double ramp = Math.max(0, Math.min(x, at + length) - at);
        return profile.rate * Math.min(x, at) + profile.rate * ramp
            + (profile.peak - profile.rate) * ramp * ramp / (2 * length) + profile.peak * Math.max(0, x - at - length);
      }
      default:
        throw new AssertionError(profile.shape);
    }
  }

  private static long extrapolate(long attempts, long t, long duration) {
    return saturated(attempts * (duration / (double) Math.max(1, t)));
  }

  private static long saturated(double value) {
    return value >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) Math.ceil(value);
  }

  private static long saturatedAdd(long a, long b) {
    long sum = a + b;
    return ((a ^ sum) & (b ^ sum)) < 0 ? Long.MAX_VALUE : sum;
  }

  private static long saturatedMultiply(long a, long b) {
    long high = Math.multiplyHigh(a, b);
    long low = a * b;
    return high != 0 || low < 0 ? Long.MAX_VALUE : low;
  }

  private static long mebibytes(long bytes) {
    return bytes >> 20;
  }

  private static long gibibytes(long bytes) {
    return Math.max(1, (bytes + (1L << 30) - 1) >> 30);
  }
}
