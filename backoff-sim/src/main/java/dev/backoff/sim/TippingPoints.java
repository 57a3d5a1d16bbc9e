package dev.backoff.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.LongConsumer;

/**
 * The tipping-point scan: every policy of a scenario run with its first fault at many lengths, over seeds,
 * to show which lengths it comes back from. Recovery need not be monotone in the fault's length (in the
 * default scenario full jitter survives a 30 s pause but not a 10 s one; see docs/simulator.md), so the scan
 * does not bisect: it tests the lengths of a grid ({@code 1 s}, then every {@code gridSeconds} up to the
 * longest), and between two neighbouring lengths whose outcome differs (a different number of seeds came
 * back, for any policy) every {@code resolutionSeconds} as well. Every policy runs at every tested length
 * and seed, so the result is a full table; the claims ({@link PolicyScan#recoversUpToSeconds()},
 * {@link PolicyScan#failing()}, {@link PolicyScan#monotone()}) are read off that table and say nothing
 * about untested lengths.
 *
 * <pre>{@code
 * TippingPoints.Scan scan = TippingPoints.scan(Scenario.defaults(), 20, 5, 1, Runs.defaultThreads(), null);
 * for (TippingPoints.PolicyScan p : scan.policies()) {
 *   System.out.println(p.policy() + (p.monotone() ? "" : ": not monotone"));
 * }
 * }</pre>
 *
 * Stateless; the results are immutable and thread-safe, and the same for any thread count.
 */
public final class TippingPoints {
  private TippingPoints() {}

  /** Run time left after the longest fault: two minutes (or half the time after the fault's start, if less). */
  private static final long AFTER_NANOS = 120_000_000_000L;

  /**
   * Scans the length of the scenario's first fault (its start and the other faults unchanged) for every
   * policy over {@code seeds} seeds (the scenario's seed, seed + 1, ...), {@code threads} runs at once.
   * The lengths go from 1 s up to the longest that leaves two minutes of run after the fault (or half the
   * time after its start, if less). Runs: (grid lengths + refined lengths) × policies × seeds, where the grid
   * has at most {@code longest / gridSeconds + 2} lengths and each change of outcome adds at most
   * {@code gridSeconds / resolutionSeconds - 1}.
   *
   * @param progress runs completed (see {@link #maxRuns} for their most); may be null
   * @throws NullPointerException if {@code scenario} is null
   * @throws ScenarioException if the scenario has no fault, {@code gridSeconds} or {@code resolutionSeconds} is
   *     below 1 (naming it), the seeds are bad, or the runs could need more heap than this JVM has
   * @throws IllegalArgumentException naming {@code threads} if it is less than 1
   * @throws InterruptedException if interrupted; every run is stopped first
   */
  public static Scan scan(Scenario scenario, int seeds, int gridSeconds, int resolutionSeconds, int threads,
      LongConsumer progress) throws InterruptedException {
    check(scenario, gridSeconds, resolutionSeconds);
    Runs.checkThreads(threads);
    Runs.checkSeeds(scenario, seeds);
    int longest = longestSeconds(scenario);
    TreeSet<Integer> lengths = new TreeSet<>();
    lengths.add(1);
    for (int length = gridSeconds; length < longest; length += gridSeconds) {
      lengths.add(length);
    }
    lengths.add(longest);
    Outcomes outcomes = new Outcomes(scenario, seeds);
    long[] done = {0};
    LongConsumer runsDone = progress == null ? null : completed -> progress.accept(done[0] + completed);
    outcomes.run(lengths, threads, runsDone);
    done[0] = outcomes.runs();
    TreeSet<Integer> refined = new TreeSet<>();
    Integer previous = null;
    for (int length : lengths) {
      if (previous != null && outcomes.differ(previous, length)) {
        for (int between = previous + resolutionSeconds; between < length; between += resolutionSeconds) {
          refined.add(between);
        }
      }
      previous = length;
    }
    outcomes.run(refined, threads, runsDone);
    lengths.addAll(refined);
    List<PolicyScan> policies = new ArrayList<>();
    for (int p = 0; p < scenario.policies.size(); p++) {
      List<Length> rows = new ArrayList<>();
      for (int length : lengths) {
        rows.add(new Length(length, outcomes.verdicts(p, length)));
      }
      policies.add(new PolicyScan(scenario.policies.get(p).name, rows));
    }
    return new Scan(scenario.faults.get(0).toString(), scenario.seed, seeds, gridSeconds, resolutionSeconds,
        longest, policies);
  }

  /**
   * The most runs {@link #scan} can make with these arguments (every neighbouring pair of grid lengths
   * refined): what a progress bar counts up to at most.
   *
   * @throws ScenarioException as {@link #scan} for a bad scenario, grid, resolution or seed count
   */
  public static long maxRuns(Scenario scenario, int seeds, int gridSeconds, int resolutionSeconds) {
    check(scenario, gridSeconds, resolutionSeconds);
    Runs.checkSeeds(scenario, seeds);
    int longest = longestSeconds(scenario);
    long lengths = Math.min(longest, (long) longest / gridSeconds + 2 + ((long) longest / gridSeconds + 1)
        * Math.max(0, (gridSeconds - 1) / resolutionSeconds));
    return lengths * scenario.policies.size() * seeds;
  }

  private static void check(Scenario scenario, int gridSeconds, int resolutionSeconds) {
    Objects.requireNonNull(scenario, "scenario");
    if (scenario.faults.isEmpty()) {
      throw new ScenarioException("faults", "the tipping-point scan varies the first fault's length; the scenario has none");
    }
    if (gridSeconds < 1) {
      throw new ScenarioException(null, "grid must be at least 1 second, was " + gridSeconds);
    }
    if (resolutionSeconds < 1) {
      throw new ScenarioException(null, "resolution must be at least 1 second, was " + resolutionSeconds);
    }
  }

  /** The longest fault length tried, in whole seconds (at least 1). */
  static int longestSeconds(Scenario scenario) {
    long remaining = scenario.durationNanos - scenario.faults.get(0).atNanos;
    return (int) Math.max(1, Math.min(remaining - AFTER_NANOS, remaining / 2) / 1_000_000_000L);
  }

  /**
   * Whether one run came back after the fault: the one place the scan asks the verdict, so a change of the
   * recovery rule reaches it unchanged.
   */
  static boolean cameBack(RecoveryVerdict verdict) {
    return verdict.cameBack();
  }

  /** The verdicts found so far, by policy, length and seed. */
  private static final class Outcomes {
    private final Scenario scenario;
    private final int seeds;
    private final Map<Integer, RecoveryVerdict[]> byLength = new HashMap<>(); // policy-major
    private long runs;

    Outcomes(Scenario scenario, int seeds) {
      this.scenario = scenario;
      this.seeds = seeds;
    }

    void run(Collection<Integer> lengths, int threads, LongConsumer progress) throws InterruptedException {
      List<Integer> order = new ArrayList<>(lengths);
      List<Runs.Task> tasks = new ArrayList<>();
      for (int length : order) {
        Scenario probe = withFirstFaultLength(scenario, length);
        tasks.addAll(Runs.seeds(probe, seeds));
      }
      Runs.checkMemory(tasks, threads, false);
      // The map's progress counts runs: each job reports 0 while it runs (so a stopped map stops it) and 1 at its end.
      List<RecoveryVerdict> verdicts = Runs.map(tasks, threads, progress, (task, done) -> {
        RecoveryVerdict verdict = Simulator.runOne(task.run, task.run.policies.get(0), second -> done.accept(0), 0)
            .summary().verdict();
        done.accept(1);
        return verdict;
      });
      int perLength = scenario.policies.size() * seeds;
      for (int i = 0; i < order.size(); i++) {
        byLength.put(order.get(i), verdicts.subList(i * perLength, (i + 1) * perLength).toArray(new RecoveryVerdict[0]));
      }
      runs += tasks.size();
    }

    long runs() {
      return runs;
    }

    List<RecoveryVerdict> verdicts(int policy, int length) {
      RecoveryVerdict[] all = byLength.get(length);
      return List.of(Arrays.copyOfRange(all, policy * seeds, (policy + 1) * seeds));
    }

    /** True if, for some policy, a different number of seeds came back at the two lengths. */
    boolean differ(int a, int b) {
      for (int p = 0; p < scenario.policies.size(); p++) {
        if (count(verdicts(p, a)) != count(verdicts(p, b))) {
          return true;
        }
      }
      return false;
    }
  }

  static Scenario withFirstFaultLength(Scenario scenario, int lengthSeconds) {
    Fault first = scenario.faults.get(0);
    List<Object> faults = new ArrayList<>();
    faults.add(new Fault(first.type, first.atNanos, lengthSeconds * 1_000_000_000L, first.value).spec());
    for (int i = 1; i < scenario.faults.size(); i++) {
      faults.add(scenario.faults.get(i).spec());
    }
    return scenario.with("faults", faults);
  }

  static int count(List<RecoveryVerdict> verdicts) {
    int count = 0;
    for (RecoveryVerdict verdict : verdicts) {
      count += cameBack(verdict) ? 1 : 0;
    }
    return count;
  }

  /**
   * A whole scan. Immutable and thread-safe.
   *
   * @param fault the scenario's first fault as written (its length is what varies)
   * @param firstSeed the first seed (the scenario's)
   * @param seeds seeds per policy and length
   * @param gridSeconds the grid's step
   * @param resolutionSeconds the step where the outcome changes between grid lengths
   * @param upToSeconds the longest length tested
   * @param policies one scan per policy, in scenario order
   */
  public record Scan(String fault, long firstSeed, int seeds, int gridSeconds, int resolutionSeconds,
      int upToSeconds, List<PolicyScan> policies) {
    /**
     * Copies the list.
     *
     * @throws NullPointerException if {@code fault} or {@code policies} is null
     */
    public Scan {
      Objects.requireNonNull(fault, "fault");
      policies = List.copyOf(policies);
    }

    /** The lengths tested (the same for every policy), shortest first. */
    public List<Integer> lengths() {
      List<Integer> lengths = new ArrayList<>();
      if (!policies.isEmpty()) {
        for (Length length : policies.get(0).lengths()) {
          lengths.add(length.faultSeconds());
        }
      }
      return lengths;
    }

    /** The runs made: lengths × policies × seeds. */
    public long runs() {
      return (long) lengths().size() * policies.size() * seeds;
    }
  }

  /**
   * One policy at one fault length: each seed's verdict. Immutable and thread-safe.
   *
   * @param faultSeconds the first fault's length
   * @param verdicts each seed's verdict, in seed order
   */
  public record Length(int faultSeconds, List<RecoveryVerdict> verdicts) {
    /**
     * Copies the list.
     *
     * @throws NullPointerException if {@code verdicts} is null or holds a null
     */
    public Length {
      verdicts = List.copyOf(verdicts);
    }

    /** Seeds in which the server came back ({@link RecoveryVerdict#cameBack()}). */
    public int cameBack() {
      return count(verdicts);
    }

    /** Seeds run. */
    public int runs() {
      return verdicts.size();
    }

    /** True if the server came back in every seed. */
    public boolean everySeedCameBack() {
      return cameBack() == runs();
    }
  }

  /**
   * A range of neighbouring tested lengths in which some seed did not come back at each length.
   *
   * @param fromSeconds its shortest tested length
   * @param toSeconds its longest tested length
   * @param fewestCameBack the fewest seeds that came back at one of its lengths
   * @param mostCameBack the most seeds that came back at one of its lengths
   * @param notBack the verdicts of the runs that did not come back, over the range
   */
  public record FailingRange(int fromSeconds, int toSeconds, int fewestCameBack, int mostCameBack,
      Map<RecoveryVerdict, Integer> notBack) {
    /**
     * Copies the map.
     *
     * @throws NullPointerException if {@code notBack} is null
     */
    public FailingRange {
      Map<RecoveryVerdict, Integer> copy = new EnumMap<>(RecoveryVerdict.class);
      copy.putAll(notBack);
      notBack = Collections.unmodifiableMap(copy);
    }
  }

  /**
   * One policy over every tested length, and what follows from it. Immutable and thread-safe.
   *
   * @param policy the policy's name
   * @param lengths every tested length, shortest first
   */
  public record PolicyScan(String policy, List<Length> lengths) {
    /**
     * Copies the list.
     *
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if {@code lengths} is empty
     */
    public PolicyScan {
      Objects.requireNonNull(policy, "policy");
      lengths = List.copyOf(lengths);
      if (lengths.isEmpty()) {
        throw new IllegalArgumentException("lengths must not be empty");
      }
    }

    /**
     * The longest tested length such that at it and at every shorter tested length every seed came back, or
     * null if not every seed came back even at the shortest.
     */
    public Integer recoversUpToSeconds() {
      Integer upTo = null;
      for (Length length : lengths) {
        if (!length.everySeedCameBack()) {
          break;
        }
        upTo = length.faultSeconds();
      }
      return upTo;
    }

    /** The shortest tested length at which some seed did not come back, or null if there is none. */
    public Integer firstFailingSeconds() {
      for (Length length : lengths) {
        if (!length.everySeedCameBack()) {
          return length.faultSeconds();
        }
      }
      return null;
    }

    /** Every maximal range of neighbouring tested lengths at each of which some seed did not come back. */
    public List<FailingRange> failing() {
      List<FailingRange> ranges = new ArrayList<>();
      int start = -1;
      for (int i = 0; i <= lengths.size(); i++) {
        boolean fails = i < lengths.size() && !lengths.get(i).everySeedCameBack();
        if (fails && start < 0) {
          start = i;
        } else if (!fails && start >= 0) {
          ranges.add(range(lengths.subList(start, i)));
          start = -1;
        }
      }
      return List.copyOf(ranges);
    }

    private static FailingRange range(List<Length> run) {
      int fewest = Integer.MAX_VALUE;
      int most = 0;
      Map<RecoveryVerdict, Integer> notBack = new EnumMap<>(RecoveryVerdict.class);
      for (Length length : run) {
        fewest = Math.min(fewest, length.cameBack());
        most = Math.max(most, length.cameBack());
        for (RecoveryVerdict verdict : length.verdicts()) {
          if (!cameBack(verdict)) {
            notBack.merge(verdict, 1, Integer::sum);
          }
        }
      }
      return new FailingRange(run.get(0).faultSeconds(), run.get(run.size() - 1).faultSeconds(), fewest, most,
          notBack);
    }

    /** True if no tested length had more seeds come back than a shorter tested length. */
    public boolean monotone() {
      return nonMonotone() == null;
    }

    /**
     * The evidence against monotony: the pair of tested lengths, shorter first, where the longer one had the
     * most more seeds come back (the shortest such pair on a tie), or null if recovery is monotone over the
     * tested lengths.
     */
    public Length[] nonMonotone() {
      Length[] worst = null;
      int most = 0;
      for (int i = 0; i < lengths.size(); i++) {
        for (int j = i + 1; j < lengths.size(); j++) {
          int gain = lengths.get(j).cameBack() - lengths.get(i).cameBack();
          if (gain > most) {
            most = gain;
            worst = new Length[] {lengths.get(i), lengths.get(j)};
          }
        }
      }
      return worst;
    }
  }
}
