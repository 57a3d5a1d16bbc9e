package dev.backoff.sim;

import java.util.List;

/**
 * The numbers of one run that say how well a storm-protection mechanism holds the server's capacity, sheds
 * retries and recovers, taken from its per-second series so that {@code simulate --seeds} can compare them
 * without the series. Immutable and thread-safe.
 *
 * <p>The <em>window</em> is the second half of the disturbance (the faults and an open-loop spike or ramp,
 * whole seconds as in {@link Summary}): the overload's steady part, after the first half let the clients
 * and the limiters settle, as the baseline is the second half of the time before it. A run without a
 * disturbance has no window (NaN).
 *
 * @param windowStart the window's first second; -1 without one
 * @param windowEnd the second after the window's last; -1 without one
 * @param goodput mean successes per second in the window
 * @param capacity mean requests per second the server can serve in the window: a pool's available workers
 *     over its service time (with the capacity and latency faults of each second's middle, 0 while paused or
 *     crashed); NaN for a server without a capacity of its own (knee, linear)
 * @param started mean logical requests started per second in the window (the offered load)
 * @param errors mean attempts answered with an error per second in the window (a pool's shed requests, 429
 *     or 503)
 * @param backSeconds seconds from the end of the disturbance to the first second from which goodput stays at
 *     90% of the baseline or more for 5 seconds; NaN if it never does (or there is no baseline)
 * @param backFromLastError {@code backSeconds} counted from the last second with an error up to that point
 *     (an adaptive rate limiter's last cut, from which its growth time runs); NaN if none
 * @param requests logical requests started over the whole run
 * @param retries retries the policy scheduled over the whole run
 * @param refusedFirst first attempts the concurrency limiter refused over the whole run; -1 without one
 * @param refusedRetries retries and hedges the concurrency limiter refused over the whole run; -1 without one
 */
record ProtectionSummary(int windowStart, int windowEnd, double goodput, double capacity, double started,
    double errors, double backSeconds, double backFromLastError, long requests, long retries, long refusedFirst,
    long refusedRetries) {

  /** Goodput must stay at this share of the baseline ... */
  static final double BACK_SHARE = 0.9;
  /** ... for this many seconds in a row to count as back. */
  static final int BACK_SECONDS = 5;

  static ProtectionSummary of(Scenario scenario, PolicyResult result) {
    List<Second> series = result.series();
    int seconds = series.size();
    int[] window = window(scenario, seconds);
    int from = window[0];
    int to = window[1];
    double goodput = Double.NaN;
    double capacity = Double.NaN;
    double started = Double.NaN;
    double errors = Double.NaN;
    if (from >= 0) {
      long good = 0;
      long requests = 0;
      long failed = 0;
      double capacitySum = 0;
      for (int t = from; t < to; t++) {
        Second s = series.get(t);
        good += s.goodput();
        requests += s.newRequests();
        failed += s.errors();
        capacitySum += capacity(scenario, t);
      }
      int n = to - from;
      goodput = (double) good / n;
      started = (double) requests / n;
      errors = (double) failed / n;
      capacity = capacitySum / n;
    }
    double back = Double.NaN;
    double fromLastError = Double.NaN;
    double baseline = result.summary().baselineGoodput();
    if (to >= 0 && baseline > 0) {
      for (int t = to; t + BACK_SECONDS <= seconds && Double.isNaN(back); t++) {
        boolean held = true;
        for (int k = t; k < t + BACK_SECONDS && held; k++) {
          held = series.get(k).goodput() >= BACK_SHARE * baseline;
        }
        if (held) {
          back = t - to;
          for (int k = t; k >= 0; k--) {
            if (series.get(k).errors() > 0) {
              fromLastError = t - k;
              break;
            }
          }
        }
      }
    }
    long requests = 0;
    long retries = 0;
    for (Second s : series) {
      requests += s.newRequests();
      retries += s.retries();
    }
    long refusedFirst = -1;
    long refusedRetries = -1;
    if (result.usesConcurrencyLimiter()) {
      refusedFirst = result.concurrencyRefusedFirst();
      refusedRetries = result.concurrencyRefusedRetries();
    }
    return new ProtectionSummary(from, to, goodput, capacity, started, errors, back, fromLastError, requests,
        retries, refusedFirst, refusedRetries);
  }

  /**
   * The window of a run of {@code seconds} seconds: its first second and the second after its last, or
   * {-1, -1} without a disturbance.
   */
  static int[] window(Scenario scenario, int seconds) {
    long start = scenario.disturbanceStartNanos();
    if (start != Long.MAX_VALUE) {
      int first = (int) (start / 1_000_000_000L);
      int end = (int) Math.min(seconds, (scenario.disturbanceEndNanos() + 999_999_999L) / 1_000_000_000L);
      if (end > first) {
        return new int[] {first + (end - first) / 2, end};
      }
    }
    return new int[] {-1, -1};
  }

  /**
   * Why {@code scenario} has no goodput against the capacity ({@link WindowMetric#GOODPUT_OF_CAPACITY}), or null
   * if it has one: a server other than a pool has no capacity of its own, a run without a disturbance has no
   * window, and a pool paused or crashed for the whole window serves nothing in it.
   */
  static String noCapacity(Scenario scenario) {
    if (scenario.serverModel != Scenario.ServerModel.POOL) {
      return "the " + scenario.serverModel.name().toLowerCase(java.util.Locale.ROOT)
          + " server has no capacity of its own (only a pool server has one)";
    }
    int[] window = window(scenario, scenario.seconds());
    if (window[0] < 0) {
      return "the scenario has no disturbance (fault, load step, spike or ramp), so no window to measure it in";
    }
    double capacity = 0;
    for (int t = window[0]; t < window[1]; t++) {
      capacity += capacity(scenario, t);
    }
    return capacity > 0 ? null : "the pool serves nothing in the disturbance's second half (paused or crashed)";
  }

  /**
   * Requests per second a pool server can serve in second {@code t}: its workers left by the capacity faults
   * over its service time lengthened by the latency faults, 0 while paused or crashed, all as at the
   * second's middle; NaN for another server.
   */
  static double capacity(Scenario scenario, int t) {
    if (scenario.serverModel != Scenario.ServerModel.POOL) {
      return Double.NaN;
    }
    long middle = t * 1_000_000_000L + 500_000_000L;
    double kept = 1;
    long added = 0;
    for (Fault fault : scenario.faults) {
      if (fault.atNanos <= middle && middle < fault.endNanos()) {
        switch (fault.type) {
          case PAUSE, CRASH -> kept = 0;
          case CAPACITY -> kept *= fault.value;
          case LATENCY -> added += (long) fault.value;
        }
      }
    }
    return Math.floor(scenario.workers * kept) * 1e9 / (scenario.serviceTimeNanos + added);
  }

  /** The share of the logical requests started whose first attempt the concurrency limiter refused; NaN without one. */
  double firstShed() {
    return refusedFirst < 0 || requests == 0 ? Double.NaN : (double) refusedFirst / requests;
  }

  /** The share of the retries scheduled that the concurrency limiter refused (with the hedges); NaN without one. */
  double retriesShed() {
    return refusedRetries < 0 || retries == 0 ? Double.NaN : (double) refusedRetries / retries;
  }
}
