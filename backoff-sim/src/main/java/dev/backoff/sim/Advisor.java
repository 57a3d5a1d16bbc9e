package dev.backoff.sim;

import dev.backoff.Preset;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongConsumer;

/**
 * The policy advisor: searches strategy families and their parameters (first delay, multiplier, cap, jitter,
 * attempt limit, retry budget kind and size), admission control (none, the adaptive rate limiter, an adaptive
 * concurrency limit: {@link PolicyCandidate.Protection}) and, when asked, hedging (a fixed delay or a live
 * quantile: {@link PolicyCandidate.Hedge}) for the policies that meet a list of {@link Objective}s in a scenario,
 * judged over several seeds.
 *
 * <p><b>Method.</b> Every candidate is a policy in the one policy grammar ({@link PolicyCandidate}) run in the
 * scenario once per seed (the scenario's seed, then the next ones), so one candidate costs {@code seeds} runs;
 * the scenario's own {@code policies}, {@code max-attempts} and {@code budget} are replaced by the candidate's.
 * The search spends at most {@link Settings#runs()} runs in two phases:
 *
 * <ol>
 *   <li><b>Grid</b>: {@value #GRID_SIZE} candidates with the first protection searched ({@link
 *       Settings#protections}; none by default), the five families (exponential with full, equal or no jitter,
 *       decorrelated jitter, fixed) × first delay 100 ms or 1 s (multiplier 2, cap 20 s) × 3 or 8 attempts × no
 *       budget or AWS's token bucket, and the presets aws-standard and google-cloud with and without that
 *       budget; then, for each further protection, {@value #PROTECTED_BLOCK}: the five families with a first delay
 *       of 100 ms, 3 or 8 attempts, no budget; then, for each further hedging ({@link Settings#hedges}; none but
 *       the first by default), {@value #HEDGED_BLOCK}: full jitter from 100 ms (a hedged call does not use the
 *       backoff, so one family stands for all), 2 or 3 attempts, no budget or the token bucket. The first
 *       hedging applies to every block. A candidate that cannot run is left out: the adaptive rate limiter with
 *       hedging, or an attempt limit without room for the hedges. The family varies fastest, so a budget too
 *       small for the whole grid still sees every family.
 *   <li><b>Refinement</b>, best first: the best-ranked candidate not yet refined has its neighbours run: the
 *       same policy with each other protection and each other hedging searched, the first delay and cap halved
 *       and doubled (not for a hedged candidate, which does not use them), the
 *       multiplier one step along 1.5, 2, 3, 4, the attempt limit one step along 2, 3, 4, 5, 6, 8, 10, 15, 20, and
 *       the budget added (token bucket, gRPC throttling or ratio, with their defaults), removed, or one size step
 *       smaller or larger. It stops when the budget cannot pay for another candidate, or when the
 *       {@value #REFINED_TOP} best candidates have all been refined (a local optimum).
 * </ol>
 *
 * <p><b>Ranking.</b> Candidates meeting every objective come first: those whose 95% intervals also lie within
 * every bound but {@code recovers}'s ({@link Evaluation#surelyMeets}) before those that meet them on the mean
 * only, each group ordered
 * by the preferred metric
 * ({@link Settings#prefer()}, by default the success ratio: the most requests served within the bounds), then
 * by their smallest relative margin over the objectives ({@link Objective#margin}, the one most comfortably
 * inside all the bounds first), then by the sum of those margins; the others follow by their total relative
 * shortfall, smallest first. Remaining ties go to the simpler candidate ({@link PolicyCandidate#mechanisms}: the
 * same numbers without a budget, an admission control or hedging need not be paid for), then by the candidate's
 * label, so the order is total.
 *
 * <p><b>Re-check.</b> The search's best are, in part, the candidates its seeds favoured. So the best
 * {@link Settings#checked} candidates meeting every objective (one whose training runs equal a better one's
 * only if too few others meet them) are run again on held-out seeds (the seeds after the training ones) in
 * every check (see {@link Robustness#checks}): the scenario as given, the load 20% lower and higher, every
 * fault 50% shorter and longer, and each load change with each fault change. In each check every objective
 * is {@linkplain Robustness.Verdict shown, not shown or failed} by its 95% interval over the check's runs. The
 * held-out count per check is {@link Settings#heldOut}: by default the fewest runs on which every
 * {@code recovers} objective can be shown (73 for {@code recovers>=0.95}), and for a mean objective as many as
 * the runs' spread needs for its interval to clear the bound ({@link Robustness#seedsToShowMean}, up to
 * {@link Robustness#MOST_FOR_A_MEAN}). Each candidate is screened on the first {@code seeds} held-out seeds;
 * every one that can still be shown is extended, check by check (the closest to failing first), to the count
 * its check needs, and stopped at the first check that does not show every objective; so every verdict rests
 * on the runs it reports. The recommendation ({@link Advice#recommended}) is the most robust of those shown
 * in every check ({@link Robustness#compare}: the widest worst-case margins; equal margins, the simpler
 * policy); none if no candidate is. These runs come on top of {@link Settings#runs}.
 *
 * <p><b>Determinism.</b> Each batch of runs is complete before the next batch is chosen, and results are
 * gathered in candidate and seed order, so the same scenario, objectives, seeds and budget give the same
 * advice whatever the thread count.
 *
 * <p>The runs go through {@link Runs} (which checks the heap for the runs in flight and stops them all when
 * the caller is interrupted). Stateless and thread-safe; each call uses its own threads, stopped before it
 * returns.
 */
public final class Advisor {
  /** Candidates in the grid phase for one admission control (the first searched). */
  public static final int GRID_SIZE = 44;
  /** Candidates in the grid phase for each further admission control. */
  public static final int PROTECTED_BLOCK = 10;
  /** Candidates in the grid phase for each further hedging. */
  public static final int HEDGED_BLOCK = 4;
  /** The refinement stops when this many of the best candidates have been refined. */
  public static final int REFINED_TOP = 5;

  private static final List<Double> MULTIPLIERS = List.of(1.5, 2.0, 3.0, 4.0);
  private static final List<Integer> ATTEMPTS = List.of(2, 3, 4, 5, 6, 8, 10, 15, 20);
  private static final List<Long> BUCKET_CAPACITIES = List.of(50L, 100L, 200L, 500L, 1000L, 2000L, 5000L);
  private static final List<Long> GRPC_TOKENS = List.of(5L, 10L, 20L, 50L, 100L);
  private static final List<String> RATIOS = List.of("0.05", "0.1", "0.2", "0.5", "1");
  private static final Duration SHORTEST = Duration.ofMillis(1);
  private static final Duration LONGEST = Duration.ofMinutes(10);
  static final String TOKEN_BUCKET = "token-bucket:500:5:10";

  private Advisor() {}

  /**
   * How much to search, how many of the best candidates to re-check, and on how many held-out seeds.
   *
   * @param seeds runs per candidate, each with its own seed (the scenario's seed, then the next ones); the
   *     re-checks screen on as many held-out seeds (the next ones after those)
   * @param runs the most simulation runs the search may spend (candidates × seeds); the re-checks come on top
   * @param threads how many runs go at once; the advice does not depend on it
   * @param prefer the metric that orders the candidates meeting every objective, best first in its good
   *     direction (by default {@link Objective.Metric#SUCCESS_RATIO}: the most requests served within the
   *     bounds, which is what retrying is for)
   * @param checked how many of the best candidates meeting every objective on the training seeds are re-checked
   *     on held-out seeds and under perturbed load and fault length ({@link Robustness}); one whose training
   *     runs are identical to a better one's only if too few others meet them
   * @param heldOutSeeds the held-out runs per check a recommendation needs, or {@link #SIZED} (0): the fewest on
   *     which every objective can be shown ({@link #heldOut}; a mean objective's checks sized further from their
   *     runs' spread, {@link Robustness#seedsToShowMean})
   * @param protections the admission controls searched, in {@link PolicyCandidate.Protection} order: the first
   *     gets the whole grid, each other one a block of {@value Advisor#PROTECTED_BLOCK}; refinement moves between
   *     them
   * @param hedges the hedging searched, none first if it is searched (see {@link PolicyCandidate.Hedge#parseAll}):
   *     the first applies to the whole grid, each other one gets a block of {@value Advisor#HEDGED_BLOCK};
   *     refinement moves between them
   */
  public record Settings(int seeds, int runs, int threads, Objective.Metric prefer, int checked, int heldOutSeeds,
      List<PolicyCandidate.Protection> protections, List<PolicyCandidate.Hedge> hedges) {
    /** The candidates re-checked by default. */
    public static final int CHECKED = 5;
    /** {@link #heldOutSeeds} sized to the objectives. */
    public static final int SIZED = 0;
    /**
     * The admission controls searched by default: none, the adaptive rate limiter and the gradient concurrency
     * limit ({@code concurrency:aimd} only when asked, to keep the grid at {@value Advisor#GRID_SIZE} + 2 ×
     * {@value Advisor#PROTECTED_BLOCK} candidates).
     */
    public static final List<PolicyCandidate.Protection> PROTECTIONS = List.of(PolicyCandidate.Protection.NONE,
        PolicyCandidate.Protection.ADAPTIVE, PolicyCandidate.Protection.CONCURRENCY);
    /**
     * The hedging searched by default: none. Hedging sends a request twice, which only an idempotent call may
     * do, and the scenario cannot say whether yours is; so it is searched only when asked.
     */
    public static final List<PolicyCandidate.Hedge> HEDGES = List.of(PolicyCandidate.Hedge.NONE);

    /**
     * Settings searching the default {@link #HEDGES} (none).
     *
     * @throws IllegalArgumentException as the canonical constructor
     */
    public Settings(int seeds, int runs, int threads, Objective.Metric prefer, int checked, int heldOutSeeds,
        List<PolicyCandidate.Protection> protections) {
      this(seeds, runs, threads, prefer, checked, heldOutSeeds, protections, HEDGES);
    }

    /**
     * Settings searching the default {@link #PROTECTIONS}.
     *
     * @throws IllegalArgumentException as the canonical constructor
     */
    public Settings(int seeds, int runs, int threads, Objective.Metric prefer, int checked, int heldOutSeeds) {
      this(seeds, runs, threads, prefer, checked, heldOutSeeds, PROTECTIONS);
    }

    /**
     * Settings preferring the highest success ratio, re-checking {@value #CHECKED} candidates on held-out seeds
     * sized to the objectives.
     *
     * @throws IllegalArgumentException as the canonical constructor
     */
    public Settings(int seeds, int runs, int threads) {
      this(seeds, runs, threads, Objective.Metric.SUCCESS_RATIO, CHECKED, SIZED);
    }

    /**
     * Settings re-checking {@value #CHECKED} candidates on held-out seeds sized to the objectives.
     *
     * @throws IllegalArgumentException as the canonical constructor
     */
    public Settings(int seeds, int runs, int threads, Objective.Metric prefer) {
      this(seeds, runs, threads, prefer, CHECKED, SIZED);
    }

    /**
     * Settings with held-out seeds sized to the objectives.
     *
     * @throws IllegalArgumentException as the canonical constructor
     */
    public Settings(int seeds, int runs, int threads, Objective.Metric prefer, int checked) {
      this(seeds, runs, threads, prefer, checked, SIZED);
    }

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException naming the bad value: seeds outside 1..1000, runs below seeds (not even
     *     one candidate), threads outside 1..1024, checked outside 1..100, held-out seeds outside 0..1000, no
     *     protection or one given twice, no hedging or one given twice, or only the adaptive rate limiter with
     *     only hedging (the simulator does not run them together)
     * @throws NullPointerException if {@code prefer}, {@code protections} or {@code hedges} is null
     */
    public Settings {
      java.util.Objects.requireNonNull(prefer, "prefer");
      java.util.Objects.requireNonNull(protections, "protections");
      java.util.Objects.requireNonNull(hedges, "hedges");
      if (protections.isEmpty() || new HashSet<>(protections).size() != protections.size()) {
        throw new IllegalArgumentException("protections must name each of " + PolicyCandidate.Protection.ids()
            + " at most once, and at least one, was " + protections);
      }
      protections = protections.stream().sorted().toList();
      if (hedges.isEmpty() || new HashSet<>(hedges).size() != hedges.size()) {
        throw new IllegalArgumentException("hedging must name each value at most once, and at least one, was "
            + hedges.stream().map(PolicyCandidate.Hedge::id).toList());
      }
      hedges = hedges.stream().sorted(java.util.Comparator.comparing((PolicyCandidate.Hedge h) -> h.delay() != null))
          .toList();
      if (protections.equals(List.of(PolicyCandidate.Protection.ADAPTIVE)) && hedges.get(0).delay() != null) {
        throw new IllegalArgumentException("hedging " + hedges.stream().map(PolicyCandidate.Hedge::id).toList()
            + " with only the adaptive rate limiter leaves nothing to search: the simulator does not run +adaptive "
            + "with +hedge; add none to the hedging or another protection");
      }
      if (seeds < 1 || seeds > 1000) {
        throw new IllegalArgumentException("seeds must be from 1 to 1000, was " + seeds);
      }
      if (runs < seeds) {
        throw new IllegalArgumentException("the run budget must pay for at least one candidate (" + seeds
            + " runs, one per seed), was " + runs);
      }
      if (threads < 1 || threads > 1024) {
        throw new IllegalArgumentException("threads must be from 1 to 1024, was " + threads);
      }
      if (checked < 1 || checked > 100) {
        throw new IllegalArgumentException("checked must be from 1 to 100, was " + checked);
      }
      if (heldOutSeeds < 0 || heldOutSeeds > Robustness.MOST_HELD_OUT) {
        throw new IllegalArgumentException("held-out seeds must be from 1 to " + Robustness.MOST_HELD_OUT
            + " (or 0: sized to the objectives), was " + heldOutSeeds);
      }
    }

    /**
     * The held-out runs per check: {@link #heldOutSeeds} if set, else the larger of {@link #seeds} and the
     * fewest on which every objective can be shown ({@link Robustness#seedsToShow}: 73 for
     * {@code recovers>=0.95}, since 73 recovered of 73 is the fewest whose Wilson 95% interval starts at 0.95).
     *
     * @throws IllegalArgumentException if sized to the objectives and one cannot be shown on
     *     {@value Robustness#MOST_HELD_OUT} seeds or fewer (such as {@code recovers>=1})
     */
    public int heldOut(List<Objective> objectives) {
      if (heldOutSeeds != SIZED) {
        return heldOutSeeds;
      }
      int needed = seeds;
      for (Objective objective : objectives) {
        int toShow = Robustness.seedsToShow(objective);
        if (toShow == Integer.MAX_VALUE) {
          throw new IllegalArgumentException("objective '" + objective + "' cannot be shown on "
              + Robustness.MOST_HELD_OUT + " held-out seeds or fewer: even when every run recovers, the 95% interval"
              + " of the recovered fraction starts below the bound; use a lower bound, such as recovers>=0.95");
        }
        needed = Math.max(needed, toShow);
      }
      return needed;
    }
  }

  /**
   * Searches for policies meeting {@code objectives} in {@code scenario}.
   *
   * @param progress told the simulated seconds completed so far over all runs, rising to at most
   *     {@link #totalSeconds}; called from worker threads, never concurrently; may be null
   * @throws NullPointerException if an argument other than {@code progress} is null
   * @throws IllegalArgumentException if {@code objectives} is empty, or the held-out seeds are sized to them and
   *     one cannot be shown ({@link Settings#heldOut})
   * @throws ScenarioException if an objective needs a disturbance to recover from and the scenario has none, a
   *     {@code goodput} objective (or preference) needs the server's capacity and the scenario has none (a server
   *     other than a pool, no disturbance, or a pool serving nothing in its window: {@code simulate --seeds}
   *     shows no goodput/capacity for it),
   *     the seeds would pass the largest seed, or the runs in flight could need more heap than this JVM has
   * @throws InterruptedException if the calling thread is interrupted (the runs under way are cancelled)
   */
  public static Advice advise(Scenario scenario, List<Objective> objectives, Settings settings, LongConsumer progress)
      throws InterruptedException {
    java.util.Objects.requireNonNull(scenario, "scenario");
    java.util.Objects.requireNonNull(settings, "settings");
    if (objectives.isEmpty()) {
      throw new IllegalArgumentException("at least one objective is needed, such as " + Objective.EXAMPLE);
    }
    Map<String, Object> keys = new LinkedHashMap<>(scenario.explicitValues());
    keys.remove("policies");
    keys.remove("max-attempts");
    keys.remove("budget");
    Scenario base = Scenario.of(keys);
    Runs.checkSeeds(base, settings.seeds() + settings.heldOut(objectives)); // the training seeds, then the held-out
    if (base.disturbanceStartNanos() == Long.MAX_VALUE) {
      for (Objective objective : objectives) {
        if (objective.metric() == Objective.Metric.RECOVERS || objective.metric() == Objective.Metric.RECOVERY_TIME) {
          throw new ScenarioException("faults", "objective '" + objective + "' asks about recovery, but the scenario "
              + "has no fault (and no load step, spike or ramp) to recover from");
        }
      }
    }
    String noCapacity = ProtectionSummary.noCapacity(base);
    if (noCapacity != null) {
      for (Objective objective : objectives) {
        if (objective.metric() == Objective.Metric.GOODPUT) {
          throw new ScenarioException("server", "objective '" + objective + "' is goodput against the server's "
              + "capacity, but " + noCapacity);
        }
      }
      if (settings.prefer() == Objective.Metric.GOODPUT) {
        throw new ScenarioException("server", "preferring goodput (against the server's capacity) needs a capacity, "
            + "but " + noCapacity);
      }
    }
    Search search = new Search(base, objectives, settings, progress);
    return search.run(scenario.setsAttemptLimit());
  }

  /**
   * The most simulated seconds a search can run: the run budget and the most re-check runs (every candidate
   * checked run on the most held-out seeds a check can be sized to in every check), times the scenario's
   * duration.
   *
   * @throws IllegalArgumentException as {@link Settings#heldOut}
   */
  public static long totalSeconds(Scenario scenario, List<Objective> objectives, Settings settings) {
    long checks = (long) settings.checked() * Robustness.checks(scenario).size() * mostPerCheck(objectives, settings);
    return ((long) settings.runs() + checks) * scenario.seconds();
  }

  /** The most held-out runs one check can be sized to: {@link Settings#heldOut}, or more for a mean objective. */
  private static int mostPerCheck(List<Objective> objectives, Settings settings) {
    int most = settings.heldOut(objectives);
    boolean mean = objectives.stream().anyMatch(o -> o.metric() != Objective.Metric.RECOVERS);
    return settings.heldOutSeeds() == Settings.SIZED && mean ? Math.max(most, Robustness.MOST_FOR_A_MEAN) : most;
  }

  /** The grid phase's candidates for the default protections, in the order they are run. */
  static List<PolicyCandidate> grid() {
    return grid(Settings.PROTECTIONS);
  }

  /** The grid phase's candidates without hedging, in the order they are run. */
  static List<PolicyCandidate> grid(List<PolicyCandidate.Protection> protections) {
    return grid(protections, Settings.HEDGES);
  }

  /**
   * The grid phase's candidates, in the order they are run: the {@value #GRID_SIZE} of the first protection, then
   * a block of {@value #PROTECTED_BLOCK} for each other one: the five families with a first delay of 100 ms, 3 or
   * 8 attempts and no budget (the limiter is the protection; refinement adds a budget); every one with the first
   * hedging. Then a block of {@value #HEDGED_BLOCK} for each other hedging, with the first protection that can
   * run with it: full jitter from 100 ms (a hedged call does not use the backoff), 2 or 3 attempts, no budget or
   * the token bucket (hedges are charged to it). Candidates that cannot run ({@link PolicyCandidate#fits}) are
   * left out.
   */
  static List<PolicyCandidate> grid(List<PolicyCandidate.Protection> protections,
      List<PolicyCandidate.Hedge> hedges) {
    List<PolicyCandidate> grid = new ArrayList<>();
    PolicyCandidate.Family[] families = {PolicyCandidate.Family.FULL_JITTER, PolicyCandidate.Family.EQUAL_JITTER,
        PolicyCandidate.Family.DECORRELATED, PolicyCandidate.Family.NO_JITTER, PolicyCandidate.Family.FIXED};
    PolicyCandidate.Protection first = protections.get(0);
    PolicyCandidate.Hedge hedge = hedges.get(0);
    for (String budget : new String[] {null, TOKEN_BUCKET}) {
      for (int attempts : new int[] {3, 8}) {
        for (Duration initial : new Duration[] {Duration.ofMillis(100), Duration.ofSeconds(1)}) {
          for (PolicyCandidate.Family family : families) {
            add(grid, family, initial, attempts, budget, first, hedge);
          }
        }
      }
      for (Preset preset : new Preset[] {Preset.AWS_STANDARD, Preset.GOOGLE_CLOUD}) {
        if (PolicyCandidate.fits(first, hedge, preset.maxAttempts())) {
          grid.add(PolicyCandidate.preset(preset, budget).withProtection(first).withHedge(hedge));
        }
      }
    }
    for (PolicyCandidate.Protection protection : protections.subList(1, protections.size())) {
      for (int attempts : new int[] {3, 8}) {
        for (PolicyCandidate.Family family : families) {
          add(grid, family, Duration.ofMillis(100), attempts, null, protection, hedge);
        }
      }
    }
    for (PolicyCandidate.Hedge other : hedges.subList(1, hedges.size())) {
      PolicyCandidate.Protection protection = protections.stream()
          .filter(p -> PolicyCandidate.fits(p, other, Integer.MAX_VALUE)).findFirst().orElse(null);
      if (protection == null) {
        continue; // no protection searched can run with this hedging
      }
      for (String budget : new String[] {null, TOKEN_BUCKET}) {
        for (int attempts : new int[] {2, 3}) {
          add(grid, PolicyCandidate.Family.FULL_JITTER, Duration.ofMillis(100), attempts, budget, protection, other);
        }
      }
    }
    return grid;
  }

  /** Adds the candidate if it can run ({@link PolicyCandidate#fits}). */
  private static void add(List<PolicyCandidate> grid, PolicyCandidate.Family family, Duration initial, int attempts,
      String budget, PolicyCandidate.Protection protection, PolicyCandidate.Hedge hedge) {
    if (PolicyCandidate.fits(protection, hedge, attempts)) {
      boolean capped = family != PolicyCandidate.Family.FIXED;
      grid.add(new PolicyCandidate(family, null, initial, family.exponential() ? 2 : 0,
          capped ? Duration.ofSeconds(20) : null, attempts, budget, protection, hedge));
    }
  }

  /** How many candidates the grid phase has for these protections and hedging. */
  static int gridSize(List<PolicyCandidate.Protection> protections, List<PolicyCandidate.Hedge> hedges) {
    return grid(protections, hedges).size();
  }

  /** The refinement's neighbours of a candidate among the default protections, in the order they are run. */
  static List<PolicyCandidate> neighbours(PolicyCandidate c) {
    return neighbours(c, Settings.PROTECTIONS);
  }

  /** The refinement's neighbours of a candidate among these protections, without other hedging. */
  static List<PolicyCandidate> neighbours(PolicyCandidate c, List<PolicyCandidate.Protection> protections) {
    return neighbours(c, protections, List.of(c.hedge()));
  }

  /**
   * The refinement's neighbours of a candidate, in the order they are run: the candidate with each other
   * protection searched, then with each other hedging searched, then one strategy parameter (not for a hedged
   * candidate: a hedged call does not use the backoff), the attempt limit or the budget one step away. Those
   * that cannot run ({@link PolicyCandidate#fits}) are left out.
   */
  static List<PolicyCandidate> neighbours(PolicyCandidate c, List<PolicyCandidate.Protection> protections,
      List<PolicyCandidate.Hedge> hedges) {
    List<PolicyCandidate> out = new ArrayList<>();
    for (PolicyCandidate.Protection protection : protections) {
      if (protection != c.protection() && PolicyCandidate.fits(protection, c.hedge(), c.attemptLimit())) {
        out.add(c.withProtection(protection));
      }
    }
    for (PolicyCandidate.Hedge hedge : hedges) {
      if (!hedge.equals(c.hedge()) && PolicyCandidate.fits(c.protection(), hedge, c.attemptLimit())) {
        out.add(c.withHedge(hedge));
      }
    }
    PolicyCandidate.Family family = c.family();
    if (family != PolicyCandidate.Family.PRESET && c.hedge().delay() == null) {
      for (Duration initial : new Duration[] {c.initial().dividedBy(2), c.initial().multipliedBy(2)}) {
        if (initial.compareTo(SHORTEST) >= 0 && initial.compareTo(c.cap() == null ? LONGEST : c.cap()) <= 0) {
          out.add(new PolicyCandidate(family, null, initial, c.multiplier(), c.cap(), c.maxAttempts(), c.budget(),
              c.protection()));
        }
      }
      if (c.cap() != null) {
        for (Duration cap : new Duration[] {c.cap().dividedBy(2), c.cap().multipliedBy(2)}) {
          if (cap.compareTo(c.initial()) >= 0 && cap.compareTo(LONGEST) <= 0) {
            out.add(new PolicyCandidate(family, null, c.initial(), c.multiplier(), cap, c.maxAttempts(), c.budget(),
                c.protection()));
          }
        }
      }
      if (family.exponential()) {
        for (double multiplier : steps(MULTIPLIERS, c.multiplier())) {
          out.add(new PolicyCandidate(family, null, c.initial(), multiplier, c.cap(), c.maxAttempts(), c.budget(),
              c.protection()));
        }
      }
    }
    if (family != PolicyCandidate.Family.PRESET) {
      for (int attempts : steps(ATTEMPTS, c.maxAttempts())) {
        if (PolicyCandidate.fits(c.protection(), c.hedge(), attempts)) {
          out.add(new PolicyCandidate(family, null, c.initial(), c.multiplier(), c.cap(), attempts, c.budget(),
              c.protection(), c.hedge()));
        }
      }
    }
    for (String budget : budgetSteps(c.budget())) {
      out.add(c.withBudget(budget));
    }
    return out;
  }

  /** The values one step below and above {@code value} in an ordered list (the nearest ones if it is not in it). */
  private static <T extends Comparable<T>> List<T> steps(List<T> ordered, T value) {
    List<T> out = new ArrayList<>();
    T below = null;
    T above = null;
    for (T step : ordered) {
      int order = step.compareTo(value);
      if (order < 0) {
        below = step;
      } else if (order > 0 && above == null) {
        above = step;
      }
    }
    if (below != null) {
      out.add(below);
    }
    if (above != null) {
      out.add(above);
    }
    return out;
  }

  private static List<String> budgetSteps(String budget) {
    List<String> out = new ArrayList<>();
    if (budget == null) {
      out.add(TOKEN_BUCKET);
      out.add("grpc:10:0.1");
      out.add("ratio:0.2:10:10s");
      return out;
    }
    dev.backoff.spec.BudgetSpec spec = dev.backoff.spec.BudgetSpec.parse(budget);
    List<String> parts = spec.parameters();
    switch (spec.kind()) {
      case "token-bucket" -> {
        for (long capacity : steps(BUCKET_CAPACITIES, Long.parseLong(parts.get(0)))) {
          out.add("token-bucket:" + capacity + ":" + parts.get(1) + ":" + parts.get(2));
        }
      }
      case "grpc" -> {
        for (long tokens : steps(GRPC_TOKENS, Long.parseLong(parts.get(0)))) {
          out.add("grpc:" + tokens + ":" + parts.get(1));
        }
      }
      case "ratio" -> {
        List<java.math.BigDecimal> ratios = RATIOS.stream().map(java.math.BigDecimal::new).toList();
        for (java.math.BigDecimal ratio : steps(ratios, new java.math.BigDecimal(parts.get(0)))) {
          out.add("ratio:" + ratio.toPlainString() + ":" + parts.get(1) + ":" + parts.get(2));
        }
      }
      default -> throw new AssertionError(budget);
    }
    out.add(null);
    return out;
  }

  /** The ranking: see the class comment. */
  static Comparator<Evaluation> ranking(List<Objective> objectives, Objective.Metric prefer) {
    Comparator<Evaluation> meetingFirst = Comparator.comparing((Evaluation e) -> !e.meets(objectives));
    // Only between two candidates that both meet every objective; the others go by their shortfall.
    Comparator<Evaluation> surelyFirst = (a, b) -> a.meets(objectives) && b.meets(objectives)
        ? Boolean.compare(!surelyMeets(a, objectives), !surelyMeets(b, objectives))
        : 0;
    Comparator<Evaluation> preferredAmongMeeting = (a, b) -> a.meets(objectives) && b.meets(objectives)
        ? Double.compare(a.value(prefer), b.value(prefer)) * (prefer.higherIsBetter() ? -1 : 1)
        : 0;
    return meetingFirst.thenComparing(surelyFirst).thenComparing(preferredAmongMeeting)
        .thenComparing(Comparator.comparingDouble((Evaluation e) -> primaryScore(e, objectives)).reversed())
        .thenComparing(Comparator.comparingDouble((Evaluation e) -> secondaryScore(e, objectives)).reversed())
        .thenComparingInt(e -> e.candidate().mechanisms())
        .thenComparing(e -> e.candidate().label());
  }

  /**
   * True if the 95% interval of every objective but {@code recovers} lies within its bound: the ranking's
   * grouping. {@code recovers} is left out here because a handful of seeds cannot bound it tightly (5 of 5
   * recovered is [0.57, 1.00]), so it would put every candidate in the same group; the table still marks it.
   */
  static boolean surelyMeets(Evaluation e, List<Objective> objectives) {
    for (Objective objective : objectives) {
      if (objective.metric() != Objective.Metric.RECOVERS && !e.surelyMeets(objective)) {
        return false;
      }
    }
    return true;
  }

  private static double primaryScore(Evaluation e, List<Objective> objectives) {
    if (e.meets(objectives)) {
      double smallest = Double.POSITIVE_INFINITY;
      for (Objective objective : objectives) {
        smallest = Math.min(smallest, objective.margin(e.value(objective.metric())));
      }
      return smallest;
    }
    double shortfall = 0;
    for (Objective objective : objectives) {
      shortfall += Math.min(0, objective.margin(e.value(objective.metric())));
    }
    return shortfall;
  }

  private static double secondaryScore(Evaluation e, List<Objective> objectives) {
    double sum = 0;
    for (Objective objective : objectives) {
      sum += objective.margin(e.value(objective.metric()));
    }
    return Double.isNaN(sum) ? Double.NEGATIVE_INFINITY : sum;
  }

  /** One search: its state lives only for the call. */
  private static final class Search {
    private final Scenario base;
    private final List<Objective> objectives;
    private final Settings settings;
    private final LongConsumer progress;
    private final List<Evaluation> evaluations = new ArrayList<>();
    private final Set<String> seen = new HashSet<>();
    private final int heldOut;
    private int runsUsed;
    private int gridRun;

    Search(Scenario base, List<Objective> objectives, Settings settings, LongConsumer progress) {
      this.base = base;
      this.heldOut = settings.heldOut(objectives);
      this.objectives = objectives;
      this.settings = settings;
      this.progress = progress;
    }

    Advice run(boolean attemptsInScenario) throws InterruptedException {
      List<PolicyCandidate> grid = affordable(grid(settings.protections(), settings.hedges()));
      gridRun = grid.size();
      evaluate(grid);
      Set<String> refined = new HashSet<>();
      Comparator<Evaluation> ranking = ranking(objectives, settings.prefer());
      boolean converged = false;
      while (settings.runs() - runsUsed >= settings.seeds()) {
        List<Evaluation> ranked = new ArrayList<>(evaluations);
        ranked.sort(ranking);
        Evaluation next = null;
        for (int i = 0; i < Math.min(REFINED_TOP, ranked.size()); i++) {
          if (!refined.contains(ranked.get(i).candidate().label())) {
            next = ranked.get(i);
            break;
          }
        }
        if (next == null) {
          converged = true;
          break;
        }
        refined.add(next.candidate().label());
        List<PolicyCandidate> fresh = new ArrayList<>();
        for (PolicyCandidate neighbour : neighbours(next.candidate(), settings.protections(), settings.hedges())) {
          if (!seen.contains(neighbour.label())) {
            fresh.add(neighbour);
          }
        }
        evaluate(affordable(fresh));
      }
      List<Evaluation> ranked = new ArrayList<>(evaluations);
      ranked.sort(ranking);
      int searchRuns = runsUsed;
      List<Robustness.Check> checks = Robustness.checks(base);
      List<Robustness> checked = check(ranked, checks);
      return new Advice(base, objectives, settings, ranked, gridSize(settings.protections(), settings.hedges()), gridRun,
          evaluations.size() - gridRun,
          searchRuns, converged, new Advice.Checking(checks, checked, runsUsed - searchRuns), attemptsInScenario);
    }

    /**
     * The re-checks: the best {@link Settings#checked} candidates meeting every objective (one whose training
     * runs repeat a better one's only if too few others meet them). Each is first <em>screened</em>: run in every
     * check on the first {@code seeds} held-out seeds; one that misses an objective on the mean there, or can no
     * longer show it on the runs its check is sized to, is dropped. Every other one, most robust first, is
     * <em>extended</em> check by check (the check closest to failing first) to the runs the check is sized to
     * ({@link #sized}), and stopped at the first check that does not show every objective there; so each verdict
     * the advice prints rests on the runs it names. Most robust first ({@link Robustness#compare}).
     */
    private List<Robustness> check(List<Evaluation> ranked, List<Robustness.Check> checks)
        throws InterruptedException {
      List<Evaluation> meeting = ranked.stream().filter(e -> e.meets(objectives)).toList();
      List<Evaluation> chosen = new ArrayList<>();
      for (Evaluation e : meeting) {
        if (chosen.size() < settings.checked() && chosen.stream().noneMatch(o -> o.runs().equals(e.runs()))) {
          chosen.add(e);
        }
      }
      // Too few differ (no fault, no retry: every policy ran alike)? Then the next ones, identical or not:
      // perturbed, they may part ways.
      for (Evaluation e : meeting) {
        if (chosen.size() < settings.checked() && !chosen.contains(e)) {
          chosen.add(e);
        }
      }
      chosen.sort(Comparator.comparingInt(meeting::indexOf));
      List<Robustness.Check> running = checks.stream().filter(c -> c.skipped() == null).toList();
      int screen = Math.min(settings.seeds(), heldOut);
      List<Runs.Task> tasks = new ArrayList<>();
      for (Evaluation e : chosen) {
        for (Robustness.Check check : running) {
          tasks.addAll(heldOutTasks(e, check, 0, screen));
        }
      }
      List<Confidence.Run> summaries = runAll(tasks);
      Map<Evaluation, List<List<Confidence.Run>>> runs = new LinkedHashMap<>();
      int next = 0;
      for (Evaluation e : chosen) {
        List<List<Confidence.Run>> byCheck = new ArrayList<>();
        for (int c = 0; c < running.size(); c++) {
          byCheck.add(new ArrayList<>(summaries.subList(next, next + screen)));
          next += screen;
        }
        runs.put(e, byCheck);
      }
      List<Robustness> survivors = new ArrayList<>();
      List<Robustness> out = new ArrayList<>();
      for (Evaluation e : chosen) {
        Robustness screened = robustness(e, running, runs.get(e), Robustness.Stage.SCREENED_OUT, null);
        boolean possible = screened.worst().stream().noneMatch(w -> !w.met() && w.check().equals(Robustness.TRAINING))
            && screened.judgments().stream().allMatch(j -> Robustness.canStillBeShown(j)
                && j.objective().isMetBy(j.value()));
        (possible ? survivors : out).add(screened);
      }
      survivors.sort(Robustness::compare);
      for (Robustness screened : survivors) {
        Evaluation e = screened.training();
        List<Integer> needed = new ArrayList<>();
        for (int c = 0; c < running.size(); c++) {
          needed.add(null);
        }
        for (int c : closestFirst(screened, running)) {
          List<Confidence.Run> checkRuns = runs.get(e).get(c);
          // Sized from the screen, then once more from the runs that sizing gave (a mean's spread, measured
          // better); the verdict on that count is final.
          int target = sized(e.candidate(), checkRuns);
          for (int round = 0; round < 2 && checkRuns.size() < target; round++) {
            checkRuns.addAll(runAll(heldOutTasks(e, running.get(c), checkRuns.size(), target)));
            target = Math.max(checkRuns.size(), round == 0 ? sized(e.candidate(), checkRuns) : checkRuns.size());
          }
          needed.set(c, checkRuns.size());
          Evaluation extended = Evaluation.of(e.candidate(), checkRuns);
          if (objectives.stream().anyMatch(o -> Robustness.judge(o, extended) != Robustness.Verdict.SHOWN)) {
            break;
          }
        }
        out.add(robustness(e, running, runs.get(e), Robustness.Stage.EXTENDED, needed));
      }
      // Stable: equally robust candidates keep their training order.
      out.sort(Comparator.comparingInt((Robustness r) -> chosen.indexOf(r.training())));
      out.sort(Robustness::compare);
      return out;
    }

    /**
     * The held-out runs a check of a candidate needs, from the runs it has: {@link #heldOut} (sized to the
     * {@code recovers} objectives, or as asked); when sized to the objectives, more for each mean objective whose
     * interval does not yet clear its bound but whose spread lets up to {@link Robustness#MOST_FOR_A_MEAN} runs
     * clear it ({@link Robustness#seedsToShowMean}); never fewer than it has.
     */
    private int sized(PolicyCandidate candidate, List<Confidence.Run> checkRuns) {
      int target = Math.max(heldOut, checkRuns.size());
      if (settings.heldOutSeeds() != Settings.SIZED) {
        return target;
      }
      Evaluation e = Evaluation.of(candidate, checkRuns);
      for (Objective objective : objectives) {
        if (objective.metric() != Objective.Metric.RECOVERS) {
          int toShow = Robustness.seedsToShowMean(objective, e.value(objective.metric()),
              e.interval(objective.metric()), checkRuns.size(), Robustness.MOST_FOR_A_MEAN);
          if (toShow != Integer.MAX_VALUE) {
            target = Math.max(target, toShow);
          }
        }
      }
      return target;
    }

    /**
     * A candidate's re-check; {@code needed}: per check the runs it was sized to, null (or a null entry) for a
     * check not extended, sized from the runs it has.
     */
    private Robustness robustness(Evaluation e, List<Robustness.Check> running, List<List<Confidence.Run>> runs,
        Robustness.Stage stage, List<Integer> needed) {
      List<Robustness.Result> results = new ArrayList<>();
      List<Integer> sizes = new ArrayList<>();
      for (int c = 0; c < running.size(); c++) {
        results.add(new Robustness.Result(running.get(c), Evaluation.of(e.candidate(), runs.get(c))));
        Integer size = needed == null ? null : needed.get(c);
        sizes.add(size != null ? size : sized(e.candidate(), runs.get(c)));
      }
      return new Robustness(e, results, objectives, heldOut, stage, sizes);
    }

    /** The checks' indexes, the one whose smallest margin over the objectives is smallest first (stable). */
    private List<Integer> closestFirst(Robustness screened, List<Robustness.Check> running) {
      double[] closest = new double[running.size()];
      for (int c = 0; c < running.size(); c++) {
        Evaluation e = screened.results().get(c).evaluation();
        closest[c] = objectives.stream().mapToDouble(o -> o.margin(e.value(o.metric()))).min().orElse(0);
      }
      List<Integer> order = new ArrayList<>();
      for (int c = 0; c < running.size(); c++) {
        order.add(c);
      }
      order.sort(Comparator.comparingDouble(c -> closest[c]));
      return order;
    }

    /** A candidate's runs in a check on held-out seeds {@code from} (inclusive) to {@code to} (exclusive). */
    private List<Runs.Task> heldOutTasks(Evaluation e, Robustness.Check check, int from, int to) {
      Scenario scenario = base.with(check.keys()).with(e.candidate().scenarioKeys());
      List<Runs.Task> tasks = new ArrayList<>();
      for (int s = from; s < to; s++) {
        tasks.add(Runs.task(scenario, e.candidate().policySpec(), base.seed + settings.seeds() + s));
      }
      return tasks;
    }

    private List<Confidence.Run> runAll(List<Runs.Task> tasks) throws InterruptedException {
      if (tasks.isEmpty()) {
        return List.of();
      }
      long before = (long) runsUsed * base.seconds();
      List<Confidence.Run> summaries = Runs.summariesWithProtection(tasks, settings.threads(),
          progress == null ? null : seconds -> progress.accept(before + seconds));
      runsUsed += tasks.size();
      return summaries;
    }

    /** The first candidates the remaining budget pays for, new ones only. */
    private List<PolicyCandidate> affordable(List<PolicyCandidate> candidates) {
      List<PolicyCandidate> out = new ArrayList<>();
      int left = (settings.runs() - runsUsed) / settings.seeds();
      for (PolicyCandidate candidate : candidates) {
        if (out.size() == left) {
          break;
        }
        if (seen.add(candidate.label())) {
          out.add(candidate);
        }
      }
      return out;
    }

    private void evaluate(List<PolicyCandidate> batch) throws InterruptedException {
      if (batch.isEmpty()) {
        return;
      }
      int seeds = settings.seeds();
      List<Runs.Task> tasks = new ArrayList<>();
      for (PolicyCandidate candidate : batch) {
        Scenario scenario = base.with(candidate.scenarioKeys());
        for (int s = 0; s < seeds; s++) {
          tasks.add(Runs.task(scenario, candidate.policySpec(), base.seed + s));
        }
      }
      List<Confidence.Run> summaries = runAll(tasks);
      for (int c = 0; c < batch.size(); c++) {
        evaluations.add(Evaluation.of(batch.get(c), summaries.subList(c * seeds, (c + 1) * seeds)));
      }
    }
  }
}
