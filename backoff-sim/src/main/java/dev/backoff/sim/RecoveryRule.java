package dev.backoff.sim;

import java.util.Objects;

/**
 * The one rule that judges whether a run recovered from its disturbance, shared by the simulator
 * ({@link Summary}), the lab and {@code backoff lab calibrate}, so that a live run and a simulated one are
 * judged alike. It reads per-second counts and returns a {@link Judgement}: the verdict, the numbers it
 * rests on and a sentence saying why. Stateless and thread-safe.
 *
 * <p>The rule, in order (the first that applies gives the verdict):
 * <ol>
 *   <li>no disturbance: {@link RecoveryVerdict#NO_FAULT};
 *   <li>the disturbance starts at 0s: {@link RecoveryVerdict#NO_BASELINE};
 *   <li>the baseline window (the second half of the time before the disturbance) is shorter than
 *       {@value #MIN_BASELINE_SECONDS} s: {@link RecoveryVerdict#SHORT_BASELINE};
 *   <li>nothing was offered and no attempt sent in it: {@link RecoveryVerdict#NO_BASELINE};
 *   <li>nothing succeeded in it: {@link RecoveryVerdict#DOWN_BEFORE_FAULT};
 *   <li>fewer than 90% of the requests offered in it succeeded, or more attempts failed in it than
 *       succeeded: {@link RecoveryVerdict#OVERLOADED_BEFORE_FAULT} (the baseline is what the server could serve,
 *       not what was asked of it, so coming back to it shows nothing);
 *   <li>the offered load after the disturbance is not the load before it (an open-loop step or ramp):
 *       {@link RecoveryVerdict#LOAD_CHANGED}, with the share of the new load that was served;
 *   <li>less than one recovery window of run after the disturbance: {@link RecoveryVerdict#NOT_OBSERVED};
 *   <li>otherwise the recovery point decides (see {@link #recoveryPoint}): none is {@link RecoveryVerdict#NOT_RECOVERED},
 *       unless in the run's last recovery window the server answered at least 90% of the attempts sent to it
 *       (at baseline latency, where known) while those attempts averaged below 90% of baseline goodput: then
 *       {@link RecoveryVerdict#CLIENTS_BACKING_OFF};
 *       one with goodput after the disturbance averaging at least 90% of baseline is {@link RecoveryVerdict#RECOVERED},
 *       below that {@link RecoveryVerdict#LATE}.
 * </ol>
 */
public final class RecoveryRule {
  /** The share of the baseline goodput (and of the offered load, before the fault) that counts as healthy. */
  public static final double SHARE = 0.9;
  /** The shortest baseline window that can be judged against, in seconds. */
  public static final int MIN_BASELINE_SECONDS = 5;

  private RecoveryRule() {}

  /**
   * One run's per-second counts, index = second since the start. Arrays are read, never kept or changed.
   *
   * @param successes logical requests that succeeded in each second
   * @param offered logical requests started (offered) in each second
   * @param attempts attempts sent in each second
   * @param failedAttempts attempts that failed (errors and timeouts) in each second
   * @param latencySeconds the server's latency at the end of each second, NaN where unknown (then only
   *     goodput decides)
   */
  public record Series(long[] successes, long[] offered, long[] attempts, long[] failedAttempts,
      double[] latencySeconds) {
    /**
     * Checks that every series has the same length.
     *
     * @throws NullPointerException if any is null
     * @throws IllegalArgumentException if their lengths differ
     */
    public Series {
      int n = successes.length;
      if (offered.length != n || attempts.length != n || failedAttempts.length != n || latencySeconds.length != n) {
        throw new IllegalArgumentException("every series needs one value per second (" + n + "), was "
            + offered.length + ", " + attempts.length + ", " + failedAttempts.length + ", " + latencySeconds.length);
      }
    }

    int seconds() {
      return successes.length;
    }
  }

  /**
   * The disturbance and what the rule needs to know of the scenario.
   *
   * @param startSecond the first second of the disturbance, or -1 for a run without one
   * @param endSecond the second after it (the first second the recovery can start), at least {@code startSecond}
   * @param windowSeconds the recovery window, at least 1 (lengthened at low rates, see {@link #recoveryPoint})
   * @param offeredBefore the offered load before the disturbance, per second, NaN if it follows the system
   *     (closed loop)
   * @param offeredAfter the offered load after it, per second, NaN if it follows the system
   */
  public record Disturbance(int startSecond, int endSecond, int windowSeconds, double offeredBefore,
      double offeredAfter) {
    /**
     * Checks the window.
     *
     * @throws IllegalArgumentException if the window is not positive or the end is before the start
     */
    public Disturbance {
      if (windowSeconds < 1) {
        throw new IllegalArgumentException("windowSeconds must be at least 1, was " + windowSeconds);
      }
      if (startSecond >= 0 && endSecond < startSecond) {
        throw new IllegalArgumentException("the disturbance ends (" + endSecond + ") before it starts ("
            + startSecond + ")");
      }
    }

    /** A run without a disturbance. */
    public static Disturbance none(int windowSeconds) {
      return new Disturbance(-1, -1, windowSeconds, Double.NaN, Double.NaN);
    }

    /** A fault over seconds {@code [start, end)} under a load that does not change. */
    public static Disturbance fault(int start, int end, int windowSeconds) {
      return new Disturbance(start, end, windowSeconds, Double.NaN, Double.NaN);
    }

    boolean loadChanged() {
      return !Double.isNaN(offeredBefore) && !Double.isNaN(offeredAfter)
          && Math.abs(offeredAfter - offeredBefore) > 0.1 * Math.max(offeredBefore, offeredAfter);
    }
  }

  /**
   * The verdict and the numbers it follows from.
   *
   * @param verdict the verdict
   * @param reason one sentence with the numbers that give the verdict
   * @param baselineGoodput mean successes per second in the baseline window (for a run without a disturbance,
   *     its second half); NaN if there is none
   * @param baselineOffered mean logical requests offered per second in the same window; NaN if there is none
   * @param recoverySeconds seconds from the disturbance's end to the recovery point, for {@link RecoveryVerdict#RECOVERED}
   *     and {@link RecoveryVerdict#LATE} only, else null
   * @param goodputAfter mean successes per second from the disturbance's end to the end of the run; NaN without
   *     a disturbance or when the run ends with it
   */
  public record Judgement(RecoveryVerdict verdict, String reason, double baselineGoodput, double baselineOffered,
      Integer recoverySeconds, double goodputAfter) {
    /**
     * Checks the verdict against the recovery time.
     *
     * @throws NullPointerException if verdict or reason is null
     * @throws IllegalArgumentException if {@code recoverySeconds} is set for a verdict other than recovered or
     *     late, or missing for one of those
     */
    public Judgement {
      Objects.requireNonNull(verdict, "verdict");
      Objects.requireNonNull(reason, "reason");
      if (verdict.cameBack() != (recoverySeconds != null)) {
        throw new IllegalArgumentException("recoverySeconds must be set exactly for a recovered or late verdict, "
            + "was " + recoverySeconds + " for " + verdict);
      }
    }
  }

  /**
   * Judges one run.
   *
   * @throws IllegalArgumentException if the disturbance does not lie within the series
   */
  public static Judgement judge(Series series, Disturbance disturbance) {
    int n = series.seconds();
    int start = disturbance.startSecond();
    if (start < 0) {
      double baseline = mean(series.successes(), n / 2, n);
      return new Judgement(RecoveryVerdict.NO_FAULT, "no fault and no change of load: nothing to recover from", baseline,
          mean(series.offered(), n / 2, n), null, Double.NaN);
    }
    int end = disturbance.endSecond();
    if (start > n || end > n) {
      throw new IllegalArgumentException("the disturbance [" + start + "s, " + end + "s) is not within the "
          + n + "s of the run");
    }
    if (start == 0) {
      return new Judgement(RecoveryVerdict.NO_BASELINE, "the disturbance starts at 0s: no time before it to measure a "
          + "baseline", Double.NaN, Double.NaN, null, mean(series.successes(), end, n));
    }
    int from = start / 2;
    double baseline = mean(series.successes(), from, start);
    double offered = mean(series.offered(), from, start);
    double after = mean(series.successes(), end, n);
    if (start - from < MIN_BASELINE_SECONDS) {
      return new Judgement(RecoveryVerdict.SHORT_BASELINE, "the baseline window is " + (start - from) + "s (the second "
          + "half of the " + start + "s before the disturbance), shorter than " + MIN_BASELINE_SECONDS
          + "s: too short to judge", baseline, offered, null, after);
    }
    long attempts = sum(series.attempts(), from, start);
    long offeredCount = sum(series.offered(), from, start);
    long successes = sum(series.successes(), from, start);
    long failed = sum(series.failedAttempts(), from, start);
    String window = "in the baseline window (" + from + "s to " + start + "s)";
    if (attempts == 0 && offeredCount == 0) {
      return new Judgement(RecoveryVerdict.NO_BASELINE, "no request was sent " + window, baseline, offered, null, after);
    }
    if (successes == 0) {
      return new Judgement(RecoveryVerdict.DOWN_BEFORE_FAULT, "no request succeeded " + window + " ("
          + Values.count(attempts, "attempt", "attempts") + ")", baseline, offered, null, after);
    }
    if (successes < SHARE * offeredCount) {
      return new Judgement(RecoveryVerdict.OVERLOADED_BEFORE_FAULT, rate(baseline) + " succeeded of " + rate(offered)
          + " offered " + window + ", less than 90%: the baseline is what the server could serve, not the load",
          baseline, offered, null, after);
    }
    if (failed > successes) {
      return new Judgement(RecoveryVerdict.OVERLOADED_BEFORE_FAULT, failed + " attempts failed and " + successes
          + " succeeded " + window + ": the server was failing before the disturbance", baseline, offered, null,
          after);
    }
    if (disturbance.loadChanged()) {
      return new Judgement(RecoveryVerdict.LOAD_CHANGED, "the offered load went from " + rate(disturbance.offeredBefore())
          + " to " + rate(disturbance.offeredAfter()) + ": no baseline to come back to; after it, goodput "
          + rate(after) + " for " + rate(mean(series.offered(), end, n)) + " offered",
          baseline, offered, null, after);
    }
    int w = effectiveWindow(disturbance.windowSeconds(), baseline);
    double target = SHARE * baseline;
    if (n - end < w) {
      return new Judgement(RecoveryVerdict.NOT_OBSERVED, "the run ends " + (n - end) + "s after the disturbance, less "
          + "than one " + w + "s recovery window", baseline, offered, null, after);
    }
    double baselineLatency = meanKnown(series.latencySeconds(), from, start);
    String condition = "every " + w + "s window at or above " + rate(target) + " (90% of baseline)"
        + (Double.isNaN(baselineLatency) ? "" : " and latency within " + seconds(2 * baselineLatency)
            + " (twice baseline)");
    int at = recoveryPoint(series, end, w, baseline, baselineLatency);
    if (at < 0) {
      String backingOff = clientsBackingOff(series, w, target, baselineLatency);
      if (backingOff != null) {
        return new Judgement(RecoveryVerdict.CLIENTS_BACKING_OFF, backingOff + "; after/s " + Values.format(after, 1),
            baseline, offered, null, after);
      }
      return new Judgement(RecoveryVerdict.NOT_RECOVERED, "no second after the disturbance from which " + condition
          + "; after/s " + Values.format(after, 1), baseline, offered, null, after);
    }
    String since = "from " + (at - end) + "s after the disturbance, " + condition;
    if (after >= target) {
      return new Judgement(RecoveryVerdict.RECOVERED, since + "; after/s " + Values.format(after, 1) + " >= "
          + Values.format(target, 1), baseline, offered, at - end, after);
    }
    return new Judgement(RecoveryVerdict.LATE, since + "; but after/s " + Values.format(after, 1) + " < "
        + Values.format(target, 1), baseline,
        offered, at - end, after);
  }

  /**
   * Why goodput stayed low when the clients, not the server, held it down: in the run's last window of
   * {@code w} seconds the server was sent attempts, at most 10% of them failed, its latency (where known)
   * stayed within twice baseline, and yet the attempts sent averaged below {@code target} (90% of baseline
   * goodput) per second, so the server could not have served the baseline however healthy. This is what a
   * long fault leaves behind with closed-loop clients in long backoffs: an idle server and clients still
   * waiting. Null if the last window does not show that.
   */
  private static String clientsBackingOff(Series series, int w, double target, double baselineLatency) {
    int n = series.seconds();
    int from = n - w;
    long attempts = sum(series.attempts(), from, n);
    long failed = sum(series.failedAttempts(), from, n);
    if (attempts == 0 || attempts - failed < SHARE * attempts || attempts >= target * w) {
      return null;
    }
    double worstLatency = 0;
    for (int t = from; t < n; t++) {
      double latency = series.latencySeconds()[t];
      if (!Double.isNaN(latency)) {
        worstLatency = Math.max(worstLatency, latency);
      }
    }
    boolean latencyKnown = !Double.isNaN(baselineLatency);
    if (latencyKnown && worstLatency > 2 * baselineLatency) {
      return null;
    }
    return "load offered below baseline, clients still backing off: in the last " + w + "s the clients sent "
        + Values.format((double) attempts / w, 1) + " attempts/s, below " + rate(target) + " (90% of baseline goodput), and "
        + (attempts - failed) + " of the " + attempts + " succeeded"
        + (latencyKnown ? " with latency within " + seconds(2 * baselineLatency) + " (twice baseline)" : "");
  }

  /**
   * The recovery point: the first second {@code s} at or after {@code from} from which (1) the goodput
   * averaged over every window of {@code w} seconds starting at or after {@code s} is at least 90% of
   * baseline, (2) the server latency, where known, stays within twice its baseline, and (3) second {@code s}
   * itself has at least three quarters of the baseline goodput (so a window cannot start inside the outage or
   * a relapse and pass on the strength of the seconds that follow it). {@code w} is already lengthened by
   * {@link #effectiveWindow}. Returns -1 if there is none.
   */
  static int recoveryPoint(Series series, int from, int w, double baseline, double baselineLatency) {
    long[] successes = series.successes();
    double[] latency = series.latencySeconds();
    int seconds = successes.length;
    int lastBad = from - 1;
    if (!Double.isNaN(baselineLatency)) {
      for (int t = seconds - 1; t >= from; t--) {
        if (latency[t] > 2 * baselineLatency) {
          lastBad = t;
          break;
        }
      }
    }
    long sum = 0;
    for (int t = seconds - 1; t >= Math.max(from, seconds - w); t--) {
      sum += successes[t];
    }
    // Windows [t, t + w) from the last one backwards; the first failing one (from the end) bounds s.
    for (int t = seconds - w; t >= from && t > lastBad; t--) {
      if (t < seconds - w) {
        sum += successes[t] - successes[t + w];
      }
      if (sum < SHARE * baseline * w) {
        lastBad = t;
        break;
      }
    }
    for (int s = lastBad + 1; s <= seconds - w; s++) {
      if (successes[s] >= 0.75 * baseline) {
        return s;
      }
    }
    return -1;
  }

  /**
   * The recovery window actually used: the configured one, lengthened to {@code 1600 / baseline} seconds when
   * the baseline is low, so that 10% of the expected count is four Poisson standard deviations and a healthy
   * run's counting noise almost never reads as a relapse.
   */
  public static int effectiveWindow(int window, double baseline) {
    if (!(baseline > 0)) {
      return window;
    }
    return (int) Math.max(window, Math.ceil(1600 / baseline));
  }

  private static String rate(double perSecond) {
    return Values.format(perSecond, 1) + "/s";
  }

  private static String seconds(double value) {
    return Values.human(Math.round(value * 1e9));
  }

  private static long sum(long[] values, int from, int to) {
    long sum = 0;
    for (int i = from; i < to; i++) {
      sum += values[i];
    }
    return sum;
  }

  private static double mean(long[] values, int from, int to) {
    return to <= from ? Double.NaN : (double) sum(values, from, to) / (to - from);
  }

  private static double meanKnown(double[] values, int from, int to) {
    double sum = 0;
    int count = 0;
    for (int i = from; i < to; i++) {
      if (!Double.isNaN(values[i])) {
        sum += values[i];
        count++;
      }
    }
    return count == 0 ? Double.NaN : sum / count;
  }
}
