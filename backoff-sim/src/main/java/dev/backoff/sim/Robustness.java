package dev.backoff.sim;

import dev.backoff.spec.Durations;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How one candidate that met every objective on its training seeds held up when the {@linkplain Advisor advisor}
 * re-checked it: its runs on held-out seeds (the seeds after the training ones) with the scenario as given, and
 * with the load and the fault length perturbed, one at a time and jointly; for each objective the worst value
 * over the training runs and every check, the check where it was worst, and its margin; and for each objective
 * and check whether the held-out runs <em>show</em> it ({@link Verdict}). A candidate is <em>robust</em> when
 * every check ran on the full held-out count and shows every objective there. Immutable and thread-safe.
 */
public final class Robustness {
  /** The load perturbation: clients (closed loop) or the arrival rate (open loop), down and up by this fraction. */
  public static final BigDecimal LOAD_STEP = new BigDecimal("0.2");
  /** The fault-length perturbation: every fault shortened and lengthened by this fraction. */
  public static final BigDecimal FAULT_STEP = new BigDecimal("0.5");
  /** The name of the worst case when it is the training runs. */
  static final String TRAINING = "training";
  /** The name of the worst case when the training runs and every check gave the same value. */
  static final String EVERYWHERE = "everywhere";

  /**
   * One re-check: its name (such as {@code clients +20%}), the scenario keys it replaces, written as on the
   * command line, and why it was skipped (null if it ran).
   *
   * @param name short, for tables
   * @param keys scenario keys and their new values (empty for the held-out seeds as they are)
   * @param skipped why the scenario could not be perturbed this way (null: the check ran)
   */
  public record Check(String name, Map<String, String> keys, String skipped) {
    /** Copies {@code keys}. */
    public Check {
      keys = Collections.unmodifiableMap(new LinkedHashMap<>(keys));
    }

    /** The name, with the values it sets: {@code clients +20% (1200)}. */
    public String describe() {
      return keys.isEmpty() ? name + " (the scenario as given)" : name + " (" + String.join(", ", keys.values()) + ")";
    }
  }

  /**
   * One check's runs of the candidate.
   *
   * @param check the check
   * @param evaluation the candidate over the held-out seeds, in the check's scenario
   */
  public record Result(Check check, Evaluation evaluation) {}

  /**
   * The worst case of one objective over the training runs and every check.
   *
   * @param objective the objective
   * @param value its metric's worst value
   * @param check where it was worst: a check's name, {@code training}, or {@code everywhere} when the training
   *     runs and every check gave the same value
   * @param margin the relative margin there ({@link Objective#margin}; negative: missed)
   * @param met true if the objective was met in the training runs and in every check
   */
  public record Worst(Objective objective, double value, String check, double margin, boolean met) {}

  /**
   * What a check's runs show of an objective, from the 95% interval of the metric over those runs
   * ({@link Evaluation#interval}: Wilson's for {@code recovers}, Student's t for a mean).
   */
  public enum Verdict {
    /** The whole interval lies within the bound (for {@code recovers}: its lower end clears it). */
    SHOWN("shown"),
    /** The interval crosses the bound: these runs can tell neither way. */
    NOT_SHOWN("not shown"),
    /** The whole interval lies outside the bound (for {@code recovers}: its upper end is below it). */
    FAILS("fails");

    private final String text;

    Verdict(String text) {
      this.text = text;
    }

    /** As printed: {@code shown}, {@code not shown}, {@code fails}. */
    public String text() {
      return text;
    }
  }

  /**
   * One objective judged in one check.
   *
   * @param objective the objective
   * @param check the check's name
   * @param value the metric over the check's runs, as objectives judge it
   * @param interval its 95% interval
   * @param runs how many held-out runs the check had
   * @param verdict what the interval shows
   * @param needed the held-out runs the advisor sized this check to ({@link #seedsToShow(Objective)} for
   *     {@code recovers}, {@link #seedsToShowMean} for a mean, or {@code --held-out-seeds} as asked): a verdict
   *     on fewer runs is a screen's, not final
   */
  public record Judgment(Objective objective, String check, double value, Evaluation.Interval interval, int runs,
      Verdict verdict, int needed) {
    /**
     * Such as {@code recovers>=0.95 not shown at clients +20%: 72/73 [0.93-1.00]} or {@code amplification<=1.3
     * shown at held-out: 1.12 [1.11-1.13] over 5 seeds}; a screen's verdict (fewer runs than needed) ends with
     * {@code (screened only: 73 needed)}.
     */
    public String describe() {
      return objective + " " + verdict.text() + " at " + check + ": " + shownValue()
          + (objective.metric() == Objective.Metric.RECOVERS ? "" : " over " + runs + (runs == 1 ? " seed" : " seeds"))
          + (complete() ? "" : " (screened only: " + needed + " needed)");
    }

    /** True if the check ran on the runs it was sized to ({@link #needed}): the verdict is final. */
    public boolean complete() {
      return runs >= needed;
    }

    /** The value with its interval: {@code 72/73 [0.93-1.00]}, or {@code 1.12 [1.11-1.13]}. */
    public String shownValue() {
      Objective.Metric metric = objective.metric();
      if (metric == Objective.Metric.RECOVERS) {
        return Math.round(value * runs) + "/" + runs + " [" + Values.format(interval.low(), 3) + "-"
            + Values.format(interval.high(), 3) + "]";
      }
      return metric.format(value) + " [" + metric.format(interval.low()) + "-" + metric.format(interval.high()) + "]";
    }
  }

  /** How far the advisor's re-check took a candidate. */
  public enum Stage {
    /** Dropped after its first held-out seeds: an objective missed on the mean, or could no longer be shown. */
    SCREENED_OUT,
    /**
     * Run on the held-out count each check needs, check by check, until an objective was not shown there (or
     * every check ran): every candidate that passes the screen is.
     */
    EXTENDED
  }

  /**
   * What a check's runs show of an objective: see {@link Verdict}.
   *
   * @throws NullPointerException if an argument is null
   */
  public static Verdict judge(Objective objective, Evaluation evaluation) {
    Evaluation.Interval interval = evaluation.interval(objective.metric());
    boolean higher = objective.metric().higherIsBetter();
    double far = higher ? interval.low() : interval.high();
    double near = higher ? interval.high() : interval.low();
    if (objective.isMetBy(far)) {
      return Verdict.SHOWN;
    }
    return objective.isMetBy(near) ? Verdict.NOT_SHOWN : Verdict.FAILS;
  }

  /**
   * The fewest held-out runs per check on which {@code objective} can be shown at all: for {@code recovers},
   * the smallest n whose n recovered of n has a Wilson 95% interval clearing the bound (73 for
   * {@code recovers>=0.95}, 35 for 0.9, 16 for 0.8); 1 for the other metrics, whose intervals depend on the
   * spread of the runs rather than their number alone; {@code Integer.MAX_VALUE} if no count up to
   * {@link #MOST_HELD_OUT} can show it (such as {@code recovers>=1}).
   */
  public static int seedsToShow(Objective objective) {
    if (objective.metric() != Objective.Metric.RECOVERS) {
      return 1;
    }
    for (int n = 1; n <= MOST_HELD_OUT; n++) {
      if (objective.isMetBy(Stats.wilson(n, n).lower())) {
        return n;
      }
    }
    return Integer.MAX_VALUE;
  }

  /** The most held-out seeds per check the advisor runs. */
  public static final int MOST_HELD_OUT = 1000;

  /**
   * The most held-out seeds per check a mean objective is sized to when the held-out count is sized to the
   * objectives ({@link #seedsToShowMean}); one that would need more is reported not shown, with its interval.
   */
  public static final int MOST_FOR_A_MEAN = 80;

  /**
   * The fewest runs, from {@code runs} up to {@code most}, on which a mean objective's 95% interval can clear its
   * bound, estimated from a judgment on {@code runs} runs: the runs' spread is taken from the Student's t interval
   * (half-width t<sub>0.975, n-1</sub>·s/√n) and the mean as it is, so n is the smallest count whose half-width
   * at that spread fits between the mean and the bound. {@code runs} itself if the interval already clears the
   * bound; 2 if {@code runs} is 1 (no spread yet: one more run measures it); {@code Integer.MAX_VALUE} if the mean
   * misses the bound (more runs would not show it) or no count up to {@code most} would.
   *
   * @throws IllegalArgumentException if {@code objective} is a {@code recovers} objective (see
   *     {@link #seedsToShow(Objective)})
   */
  public static int seedsToShowMean(Objective objective, double value, Evaluation.Interval interval, int runs,
      int most) {
    if (objective.metric() == Objective.Metric.RECOVERS) {
      throw new IllegalArgumentException("recovers is sized by seedsToShow, not by a spread");
    }
    boolean higher = objective.metric().higherIsBetter();
    if (objective.isMetBy(higher ? interval.low() : interval.high())) {
      return runs;
    }
    if (!objective.isMetBy(value)) {
      return Integer.MAX_VALUE;
    }
    if (runs < 2) {
      return most >= 2 ? 2 : Integer.MAX_VALUE;
    }
    double half = (interval.high() - interval.low()) / 2;
    if (!(half > 0) || Double.isInfinite(half)) {
      return Integer.MAX_VALUE; // an infinite end (a run without the number) no count of runs narrows
    }
    double spread = half * Math.sqrt(runs) / Stats.studentT(0.975, runs - 1);
    java.util.function.IntPredicate clears = n -> {
      double width = Stats.studentT(0.975, n - 1) * spread / Math.sqrt(n);
      return objective.isMetBy(higher ? value - width : value + width);
    };
    if (most <= runs || !clears.test(most)) {
      return Integer.MAX_VALUE;
    }
    int low = runs; // does not clear
    int high = most; // clears; the half-width falls as n grows
    while (high - low > 1) {
      int middle = (low + high) >>> 1;
      if (clears.test(middle)) {
        high = middle;
      } else {
        low = middle;
      }
    }
    return high;
  }

  private final Evaluation training;
  private final List<Result> results;
  private final List<Worst> worst;
  private final double[] sortedMargins;
  private final int heldOutSeeds;
  private final Stage stage;
  private final List<Judgment> judgments;

  /**
   * A candidate's re-check: {@code needed} holds, per result, the held-out runs its check was sized to (the
   * judgments' {@link Judgment#needed}).
   */
  Robustness(Evaluation training, List<Result> results, List<Objective> objectives, int heldOutSeeds, Stage stage,
      List<Integer> needed) {
    this.training = training;
    this.results = List.copyOf(results);
    this.heldOutSeeds = heldOutSeeds;
    this.stage = stage;
    List<Judgment> judged = new ArrayList<>();
    for (int r = 0; r < results.size(); r++) {
      Result result = results.get(r);
      for (Objective objective : objectives) {
        Evaluation e = result.evaluation();
        judged.add(new Judgment(objective, result.check().name(), e.value(objective.metric()),
            e.interval(objective.metric()), e.runs().size(), judge(objective, e), needed.get(r)));
      }
    }
    this.judgments = List.copyOf(judged);
    List<Worst> worstCases = new ArrayList<>();
    for (Objective objective : objectives) {
      double first = training.value(objective.metric());
      Worst w = worst(objective, TRAINING, first, null);
      boolean same = true;
      for (Result result : results) {
        double value = result.evaluation().value(objective.metric());
        same &= Double.compare(value, first) == 0;
        w = worst(objective, result.check().name(), value, w);
      }
      worstCases.add(same ? new Worst(objective, w.value(), EVERYWHERE, w.margin(), w.met()) : w);
    }
    this.worst = List.copyOf(worstCases);
    sortedMargins = worst.stream().mapToDouble(Worst::margin).sorted().toArray();
  }

  private static Worst worst(Objective objective, String check, double value, Worst sofar) {
    double margin = objective.margin(value);
    boolean met = objective.isMetBy(value) && (sofar == null || sofar.met());
    if (sofar == null || margin < sofar.margin()) {
      return new Worst(objective, value, check, margin, met);
    }
    return new Worst(objective, sofar.value(), sofar.check(), sofar.margin(), met);
  }

  /** The candidate. */
  public PolicyCandidate candidate() {
    return training.candidate();
  }

  /** The candidate on the training seeds. */
  public Evaluation training() {
    return training;
  }

  /** Every check that ran, in order, the held-out seeds with the scenario as given first. */
  public List<Result> results() {
    return results;
  }

  /** The candidate on the held-out seeds, with the scenario as given. */
  public Evaluation heldOut() {
    return results.get(0).evaluation();
  }

  /** Each objective's worst case, in objective order. */
  public List<Worst> worst() {
    return worst;
  }

  /**
   * True if every objective was met in the training runs and every check ran on the held-out count it was sized
   * to (at least {@link #heldOutSeeds}) and shows every objective there ({@link Verdict#SHOWN}).
   */
  public boolean robust() {
    if (stage != Stage.EXTENDED) {
      return false;
    }
    for (Worst w : worst) {
      if (!w.met()) {
        return false;
      }
    }
    for (Judgment j : judgments) {
      if (j.verdict() != Verdict.SHOWN || j.runs() < heldOutSeeds || !j.complete()) {
        return false;
      }
    }
    return true;
  }

  /** How far the re-check took this candidate. */
  public Stage stage() {
    return stage;
  }

  /** The held-out runs per check a robust candidate needs (see {@link Advisor.Settings#heldOutSeeds}). */
  public int heldOutSeeds() {
    return heldOutSeeds;
  }

  /** Every objective judged in every check that ran, check by check, in objective order within each. */
  public List<Judgment> judgments() {
    return judgments;
  }

  /**
   * The judgment that keeps this candidate from being robust: the first failing one (check order, then
   * objective order), else the first not shown on the runs its check was sized to (the one that stopped the
   * extension), else the first not shown on a screen; null if none fails or is unshown.
   */
  public Judgment firstWeakness() {
    for (Judgment j : judgments) {
      if (j.verdict() == Verdict.FAILS) {
        return j;
      }
    }
    for (boolean sized : new boolean[] {true, false}) {
      for (Judgment j : judgments) {
        if (j.verdict() == Verdict.NOT_SHOWN && j.complete() == sized) {
          return j;
        }
      }
    }
    return null;
  }

  /** The objective whose worst-case margin is the smallest, with the check where it came closest (or missed). */
  public Worst binding() {
    Worst smallest = worst.get(0);
    for (Worst w : worst) {
      if (w.margin() < smallest.margin()) {
        smallest = w;
      }
    }
    return smallest;
  }

  /**
   * In a few words: {@code shown} (robust); {@code fails}/{@code not shown} with the objective, check and
   * interval; why it was dropped or not run on every held-out seed.
   */
  public String status() {
    if (robust()) {
      return "shown in every check";
    }
    for (Worst w : worst) {
      if (!w.met() && w.check().equals(TRAINING)) {
        return "missed " + w.objective() + " on the training seeds";
      }
    }
    Judgment weakness = firstWeakness();
    return switch (stage) {
      case SCREENED_OUT -> "screened out: " + (weakness != null && weakness.verdict() == Verdict.FAILS
          ? weakness.describe() : screenMiss());
      case EXTENDED -> weakness == null ? "not run on every held-out seed" : weakness.describe();
    };
  }

  /** Why the screen dropped this candidate: the first objective missed on the mean, or that cannot be shown. */
  private String screenMiss() {
    for (Judgment j : judgments) {
      if (!j.objective().isMetBy(j.value())) {
        return j.objective() + " missed at " + j.check() + ": " + j.shownValue();
      }
    }
    for (Judgment j : judgments) {
      if (!canStillBeShown(j)) {
        return j.objective() + " can no longer be shown at " + j.check() + " on " + j.needed() + " seeds: "
            + j.shownValue() + (j.objective().metric() == Objective.Metric.RECOVERS ? "" : " over " + j.runs()
            + " seeds");
      }
    }
    return "an objective missed";
  }

  /**
   * True if a judgment can still become {@link Verdict#SHOWN} on the runs its check is sized to
   * ({@link Judgment#needed}): shown already; else, on fewer runs than that, for {@code recovers} if every
   * remaining run recovered, for a mean if it meets the bound and its spread lets that many runs show it
   * ({@link #seedsToShowMean}). A verdict on the runs sized is final.
   */
  static boolean canStillBeShown(Judgment j) {
    if (j.verdict() == Verdict.SHOWN) {
      return true;
    }
    if (j.complete()) {
      return false;
    }
    if (j.objective().metric() != Objective.Metric.RECOVERS) {
      return seedsToShowMean(j.objective(), j.value(), j.interval(), j.runs(), j.needed()) != Integer.MAX_VALUE;
    }
    long recovered = Math.round(j.value() * j.runs());
    int total = j.needed();
    return j.objective().isMetBy(Stats.wilson(recovered + total - j.runs(), total).lower());
  }

  /**
   * Robust first, then the most robust: the worst-case margins compared smallest first (the smallest margin
   * decides; when two candidates tie on it, the next smallest does, and so on), each to a tenth of a percent of
   * its bound as the tables print it; when every margin ties so, the simpler policy first (fewer
   * {@linkplain PolicyCandidate#mechanisms() mechanisms}: none of a budget, an admission control and hedging
   * before one, one before two), then the exact margins.
   */
  static int compare(Robustness a, Robustness b) {
    if (a.robust() != b.robust()) {
      return a.robust() ? -1 : 1;
    }
    for (int i = 0; i < a.sortedMargins.length; i++) {
      int order = Double.compare(tenths(b.sortedMargins[i]), tenths(a.sortedMargins[i]));
      if (order != 0) {
        return order;
      }
    }
    int simpler = Integer.compare(a.candidate().mechanisms(), b.candidate().mechanisms());
    if (simpler != 0) {
      return simpler;
    }
    for (int i = 0; i < a.sortedMargins.length; i++) {
      int order = Double.compare(b.sortedMargins[i], a.sortedMargins[i]);
      if (order != 0) {
        return order;
      }
    }
    return 0;
  }

  /** A margin to a tenth of a percent, as {@code +10.0%} prints it; infinities as they are. */
  private static double tenths(double margin) {
    return Double.isInfinite(margin) || Double.isNaN(margin) ? margin : Math.round(margin * 1000) / 1000.0;
  }

  /**
   * The checks for a scenario: the held-out seeds as they are; the load {@link #LOAD_STEP} up and down
   * ({@code clients} in a closed loop, {@code rate} and, with a step, spike or ramp, {@code rate-peak} in an
   * open one); every fault {@link #FAULT_STEP} longer and shorter (none without a fault); then the four joint
   * corners, each load change with each fault change ({@code clients +20% & faults +50%} and so on). A perturbed
   * scenario the simulator refuses (a lengthened fault past the run's end, clients beyond the heap) is kept,
   * skipped, with the reason.
   */
  static List<Check> checks(Scenario base) {
    List<Check> checks = new ArrayList<>();
    checks.add(new Check("held-out", Map.of(), null));
    List<Check> loads = new ArrayList<>();
    for (BigDecimal sign : List.of(BigDecimal.ONE, BigDecimal.ONE.negate())) {
      BigDecimal factor = BigDecimal.ONE.add(LOAD_STEP.multiply(sign));
      Map<String, String> keys = new LinkedHashMap<>();
      String name;
      if (base.closedLoop) {
        name = "clients";
        long clients = new BigDecimal(base.clients).multiply(factor).setScale(0, java.math.RoundingMode.HALF_UP)
            .longValueExact();
        keys.put("clients", Long.toString(Math.max(1, clients)));
      } else {
        name = "rate";
        keys.put("rate", scaled(base.textOf("rate"), factor));
        if (!base.textOf("rate-profile").equalsIgnoreCase("constant")) {
          keys.put("rate-peak", scaled(base.textOf("rate-peak"), factor));
        }
      }
      loads.add(new Check(name + " " + percent(sign, LOAD_STEP), keys, null));
    }
    List<Check> faults = new ArrayList<>();
    if (!base.faults.isEmpty()) {
      for (BigDecimal sign : List.of(BigDecimal.ONE, BigDecimal.ONE.negate())) {
        double factor = BigDecimal.ONE.add(FAULT_STEP.multiply(sign)).doubleValue();
        List<String> scaledFaults = new ArrayList<>();
        for (Fault fault : base.faults) {
          long length = Math.max(1, Math.round(fault.lengthNanos * factor));
          Fault scaled = new Fault(fault.type, fault.atNanos, length, fault.value);
          scaledFaults.add(exactlyReadable(scaled) ? scaled.toString() : scaled.spec());
        }
        faults.add(new Check("faults " + percent(sign, FAULT_STEP), Map.of("faults", String.join(",", scaledFaults)),
            null));
      }
    }
    for (Check one : loads) {
      checks.add(check(base, one.name(), one.keys()));
    }
    for (Check one : faults) {
      checks.add(check(base, one.name(), one.keys()));
    }
    for (Check load : loads) {
      for (Check fault : faults) {
        Map<String, String> keys = new LinkedHashMap<>(load.keys());
        keys.putAll(fault.keys());
        checks.add(check(base, load.name() + " & " + fault.name(), keys));
      }
    }
    return List.copyOf(checks);
  }

  private static Check check(Scenario base, String name, Map<String, String> keys) {
    try {
      base.with(keys);
      return new Check(name, keys, null);
    } catch (ScenarioException e) {
      return new Check(name, keys, e.getMessage());
    }
  }

  private static String scaled(String decimal, BigDecimal factor) {
    return new BigDecimal(decimal.replace("_", "")).multiply(factor).stripTrailingZeros().toPlainString();
  }

  private static String percent(BigDecimal sign, BigDecimal step) {
    return (sign.signum() > 0 ? "+" : "-") + step.movePointRight(2).stripTrailingZeros().toPlainString() + "%";
  }

  /** True if the fault's short form ({@code pause@60s+45s}) reads back as the same fault. */
  private static boolean exactlyReadable(Fault fault) {
    String text = fault.toString();
    String times = text.substring(text.indexOf('@') + 1).split(":", 2)[0];
    String[] parts = times.split("\\+", 2);
    try {
      return Durations.parseNanos(parts[0]) == fault.atNanos && Durations.parseNanos(parts[1]) == fault.lengthNanos
          && (fault.type != Fault.Type.LATENCY || text.endsWith(":" + Values.human((long) fault.value))
              && Durations.parseNanos(text.substring(text.lastIndexOf(':') + 1)) == (long) fault.value)
          && (fault.type != Fault.Type.CAPACITY || Double.parseDouble(text.substring(text.lastIndexOf(':') + 1))
              == fault.value);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  @Override
  public String toString() {
    return candidate().label() + (robust() ? " robust " : " not robust ") + Arrays.toString(sortedMargins);
  }
}
