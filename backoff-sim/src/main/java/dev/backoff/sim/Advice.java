package dev.backoff.sim;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * What the {@linkplain Advisor advisor} found: every candidate it ran, ranked; those meeting every objective;
 * how the best of them held up on held-out seeds and under perturbed load and fault length ({@link #checking()});
 * the Pareto front of success ratio against amplification and p99 among the recovering candidates; the recommended
 * policy (the most robust) with its Java code, {@code simulate} command and Spring properties; or, when nothing
 * met the objectives, or nothing held them in every check, which objective binds. {@link #table()} and
 * {@link #json()} write it for people and tools, the same bytes for the same advice. Immutable and thread-safe.
 */
public final class Advice {
  /** The name the recommended policy gets in its Spring properties ({@code backoff.policies.advised.*}). */
  public static final String SPRING_NAME = "advised";
  /** How many of the front's policies the table shows at most. */
  static final int FRONT_SHOWN = 12;

  private final Scenario scenario;
  private final List<Objective> objectives;
  private final Advisor.Settings settings;
  private final List<Evaluation> ranked;
  private final int gridSize;
  private final int gridRun;
  private final int refinementsRun;
  private final int runsUsed;
  private final boolean converged;
  private final Checking checking;
  private final boolean attemptsInScenario;
  private final String scenarioFile;
  private final Map<String, String> flags;

  /**
   * The re-checks of the best candidates meeting every objective on the training seeds.
   *
   * @param checks every check, those skipped included, in order
   * @param checked the candidates re-checked, most robust first (see {@link Robustness})
   * @param runs the simulation runs the re-checks spent
   */
  public record Checking(List<Robustness.Check> checks, List<Robustness> checked, int runs) {
    /** Copies the lists. */
    public Checking {
      checks = List.copyOf(checks);
      checked = List.copyOf(checked);
    }
  }

  Advice(Scenario scenario, List<Objective> objectives, Advisor.Settings settings, List<Evaluation> ranked,
      int gridSize, int gridRun, int refinementsRun, int runsUsed, boolean converged, Checking checking,
      boolean attemptsInScenario) {
    this(scenario, objectives, settings, ranked, gridSize, gridRun, refinementsRun, runsUsed, converged, checking,
        attemptsInScenario, null, flagsOf(scenario));
  }

  private Advice(Scenario scenario, List<Objective> objectives, Advisor.Settings settings, List<Evaluation> ranked,
      int gridSize, int gridRun, int refinementsRun, int runsUsed, boolean converged, Checking checking,
      boolean attemptsInScenario, String scenarioFile, Map<String, String> flags) {
    this.checking = checking;
    this.attemptsInScenario = attemptsInScenario;
    this.scenarioFile = scenarioFile;
    this.flags = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(flags));
    this.scenario = scenario;
    this.objectives = List.copyOf(objectives);
    this.settings = settings;
    this.ranked = List.copyOf(ranked);
    this.gridSize = gridSize;
    this.gridRun = gridRun;
    this.refinementsRun = refinementsRun;
    this.runsUsed = runsUsed;
    this.converged = converged;
  }

  /** The objectives searched for. */
  public List<Objective> objectives() {
    return objectives;
  }

  /** Every candidate run, best first (see {@link Advisor}'s ranking). */
  public List<Evaluation> ranked() {
    return ranked;
  }

  /** The candidates meeting every objective, best first; empty if none did. */
  public List<Evaluation> meeting() {
    List<Evaluation> out = new ArrayList<>();
    for (Evaluation e : ranked) {
      if (e.meets(objectives)) {
        out.add(e);
      }
    }
    return out;
  }

  /** True if at least one candidate met every objective. */
  public boolean met() {
    return !ranked.isEmpty() && ranked.get(0).meets(objectives);
  }

  /**
   * The recommended policy, on its training seeds: the most robust of the candidates re-checked (the first of
   * {@link Checking#checked}) if it met every objective in the training runs and in every check; null if none
   * did (or none met them on the training seeds).
   */
  public Evaluation recommended() {
    return robust() ? checking.checked().get(0).training() : null;
  }

  /** True if a re-checked candidate met every objective in the training runs and in every check. */
  public boolean robust() {
    return !checking.checked().isEmpty() && checking.checked().get(0).robust();
  }

  /** The re-checks: the checks, and the candidates re-checked, most robust first. */
  public Checking checking() {
    return checking;
  }

  /** Simulation runs the search spent (the re-checks' are {@link Checking#runs}). */
  public int runsUsed() {
    return runsUsed;
  }

  /**
   * This advice with its {@code simulate} commands written against a scenario file and flags (as the user gave
   * them), instead of every key set in the scenario as a flag.
   *
   * @param scenarioFile the scenario file, as the user wrote it, or null
   * @param flags the scenario keys given as flags, and their values as given (the searched keys are dropped)
   */
  public Advice describedBy(String scenarioFile, Map<String, String> flags) {
    Map<String, String> kept = new java.util.LinkedHashMap<>(flags);
    kept.keySet().removeAll(List.of("policies", "max-attempts", "budget"));
    return new Advice(scenario, objectives, settings, ranked, gridSize, gridRun, refinementsRun, runsUsed, converged,
        checking, attemptsInScenario, scenarioFile, kept);
  }

  /** Every key set in the scenario, as a command-line value. */
  private static Map<String, String> flagsOf(Scenario scenario) {
    Map<String, String> out = new java.util.LinkedHashMap<>();
    for (Map.Entry<String, Object> key : scenario.explicitValues().entrySet()) {
      String text;
      if (key.getKey().equals("faults")) {
        text = scenario.faults.isEmpty() ? "none"
            : String.join(",", scenario.faults.stream().map(Fault::toString).toList());
      } else {
        text = String.join(",", Scenario.asStrings(key.getValue()));
      }
      out.put(key.getKey(), text);
    }
    return out;
  }

  /**
   * The {@code backoff simulate} command (without {@code backoff simulate}) that runs a candidate over the
   * advisor's seeds: the scenario file and flags, the check's keys, the candidate's policy (with its admission
   * control's suffix), attempt limit and budget, and {@code --seed}/{@code --seeds} (the held-out runs the
   * candidate had in that check).
   *
   * @param check null for the training seeds, else the check (run on the held-out seeds)
   */
  public List<String> simulateCommand(PolicyCandidate candidate, Robustness.Check check) {
    return simulateCommand(candidate, check, check == null ? settings.seeds() : runsIn(candidate, check));
  }

  /**
   * The held-out runs a re-checked candidate had in a check (each check is sized to its objectives, so the
   * counts can differ); {@link #heldOut} for a candidate not re-checked.
   */
  private int runsIn(PolicyCandidate candidate, Robustness.Check check) {
    for (Robustness r : checking.checked()) {
      if (r.candidate().equals(candidate)) {
        for (Robustness.Result result : r.results()) {
          if (result.check().name().equals(check.name())) {
            return result.evaluation().runs().size();
          }
        }
      }
    }
    return heldOut();
  }

  private List<String> simulateCommand(PolicyCandidate candidate, Robustness.Check check, int seeds) {
    List<String> words = new ArrayList<>();
    if (scenarioFile != null) {
      words.add("--scenario");
      words.add(scenarioFile);
    }
    Map<String, String> values = new java.util.LinkedHashMap<>(flags);
    if (check != null) {
      values.putAll(check.keys());
      values.put("seed", Long.toString(scenario.seed + settings.seeds()));
    }
    for (Map.Entry<String, String> value : values.entrySet()) {
      words.add("--" + value.getKey());
      words.add(value.getValue());
    }
    words.addAll(candidate.simulateArguments());
    if (candidate.maxAttempts() == null && attemptsInScenario) {
      words.add("--max-attempts");
      words.add("own"); // the scenario's limit would override the preset's own
    }
    words.add("--seeds");
    words.add(Integer.toString(seeds));
    return words;
  }

  /** True if a check can be sized beyond {@link #heldOut}: sized to the objectives, one of them a mean. */
  private boolean sizedBeyond() {
    return settings.heldOutSeeds() == Advisor.Settings.SIZED
        && objectives.stream().anyMatch(o -> o.metric() != Objective.Metric.RECOVERS);
  }

  /** The held-out runs per check a recommendation needs ({@link Advisor.Settings#heldOut}). */
  public int heldOut() {
    return settings.heldOut(objectives);
  }

  /** True if the search stopped because the best candidates had all been refined, false if the budget ran out. */
  public boolean converged() {
    return converged;
  }

  /**
   * The recovered fraction a candidate needs to be on the front: the {@code recovers} objective's bound, or
   * every run if there is none.
   */
  double frontRecovery() {
    for (Objective objective : objectives) {
      if (objective.metric() == Objective.Metric.RECOVERS) {
        return objective.threshold();
      }
    }
    return 1;
  }

  /** The metrics of the trade-off front: what retrying buys, and its two costs. */
  public static final List<Objective.Metric> FRONT = List.of(Objective.Metric.SUCCESS_RATIO,
      Objective.Metric.AMPLIFICATION, Objective.Metric.P99);

  /**
   * The Pareto front of the trade-off between success ratio (higher is better), amplification and p99 latency
   * (lower is better) among the candidates that recovered in at least {@link #frontRecovery()} of their runs:
   * those no other such candidate matches on all three and beats on one. Candidates with the same three values
   * appear once, the best-ranked. Ordered by amplification, then p99, then success ratio (highest first).
   */
  public List<Evaluation> front() {
    double needed = frontRecovery();
    List<Evaluation> recovering = new ArrayList<>();
    List<List<Double>> points = new ArrayList<>();
    for (Evaluation e : ranked) {
      List<Double> point = FRONT.stream().map(e::value).toList();
      if (e.value(Objective.Metric.RECOVERS) >= needed && !points.contains(point)) {
        recovering.add(e);
        points.add(point);
      }
    }
    List<java.util.function.ToDoubleFunction<Evaluation>> metrics = new ArrayList<>();
    for (Objective.Metric metric : FRONT) {
      metrics.add(metric.higherIsBetter() ? e -> -e.value(metric) : e -> e.value(metric));
    }
    List<Evaluation> front = new ArrayList<>(Pareto.front(recovering, metrics));
    front.sort(Comparator.comparingDouble((Evaluation e) -> e.value(Objective.Metric.AMPLIFICATION))
        .thenComparingDouble(e -> e.value(Objective.Metric.P99))
        .thenComparingDouble(e -> -e.value(Objective.Metric.SUCCESS_RATIO))
        .thenComparing(e -> e.candidate().label()));
    return front;
  }

  /**
   * When no candidate met every objective, which one binds, as sentences: for each objective that every
   * candidate meeting all the others misses, the best value among those (such as {@code no policy met
   * amplification<=1.05: the best was 1.12 (exponential:...) among the policies meeting the other
   * objectives}); if dropping any one objective still leaves none, each objective no candidate meets at all
   * with the best value found; if each is met by some candidate but never together, the closest candidate and
   * what it misses. Empty when an objective was met.
   */
  public List<String> binding() {
    if (met()) {
      return robust() ? List.of() : robustBinding();
    }
    List<String> out = new ArrayList<>();
    if (ranked.isEmpty()) {
      return out;
    }
    for (Objective objective : objectives) {
      List<Evaluation> others = new ArrayList<>();
      for (Evaluation e : ranked) {
        if (e.meets(without(objective))) {
          others.add(e);
        }
      }
      if (!others.isEmpty() && objectives.size() > 1) {
        Evaluation best = best(others, objective);
        out.add("no policy met " + objective + ": the best was " + show(best, objective) + " among the "
            + others.size() + " meeting " + String.join(", ", texts(without(objective))));
      }
    }
    if (!out.isEmpty()) {
      return out;
    }
    for (Objective objective : objectives) {
      boolean anyMeets = false;
      for (Evaluation e : ranked) {
        anyMeets |= objective.isMetBy(e.value(objective.metric()));
      }
      if (!anyMeets) {
        out.add("no policy met " + objective + ": the best was " + show(best(ranked, objective), objective));
      }
    }
    if (out.isEmpty()) {
      Evaluation closest = ranked.get(0);
      List<String> missed = new ArrayList<>();
      for (Objective objective : objectives) {
        double value = closest.value(objective.metric());
        if (!objective.isMetBy(value)) {
          missed.add(objective + " (was " + objective.metric().format(value) + ")");
        }
      }
      out.add("each objective is met by some policy, but none meets them together: the closest, "
          + closest.candidate().label() + ", misses " + String.join(" and ", missed));
    }
    return out;
  }

  /**
   * When candidates met every objective on the training seeds but none was shown to hold them in every check:
   * each objective on which every re-checked candidate falls short (a check whose interval lies outside the bound,
   * or crosses it on the full held-out count, or a screen that missed it on the mean or left it no way to be
   * shown), with the closest of those shortfalls (the best verdict, on the most runs, with the widest margin at
   * the interval's far end) and where; if each objective holds for some candidate but none holds them all, the
   * closest candidate and what keeps it from being robust.
   */
  private List<String> robustBinding() {
    List<String> out = new ArrayList<>();
    List<Robustness> checked = checking.checked();
    int needed = heldOut();
    for (Objective objective : objectives) {
      Robustness.Judgment closest = null;
      Robustness closestPolicy = null;
      boolean everyFallsShort = !checked.isEmpty();
      for (Robustness r : checked) {
        Robustness.Judgment weakest = null;
        for (Robustness.Judgment j : r.judgments()) {
          if (j.objective().equals(objective) && fallsShort(j, needed) && (weakest == null || weaker(j, weakest,
              needed))) {
            weakest = j;
          }
        }
        everyFallsShort &= weakest != null;
        if (weakest != null && (closest == null || weaker(closest, weakest, needed))) {
          closest = weakest;
          closestPolicy = r;
        }
      }
      if (everyFallsShort) {
        out.add(objective + " binds: " + (checked.size() == 1 ? "the one policy checked falls short of it"
            : "every one of the " + checked.size() + " policies checked falls short of it") + " somewhere on "
            + needed + (sizedBeyond() ? " or more" : "") + " held-out seeds per check; the closest, " + closestPolicy.candidate().label() + ", "
            + closest.verdict().text() + " at " + closest.check() + ": " + closest.shownValue()
            + (closest.objective().metric() == Objective.Metric.RECOVERS ? "" : " over " + closest.runs() + " seeds")
            + (closest.complete() ? "" : " (screened on " + closest.runs() + ")"));
      }
    }
    if (out.isEmpty() && !checked.isEmpty()) {
      Robustness closest = checked.get(0);
      out.add("each objective holds for some policy checked, but none is shown to hold them all: the closest, "
          + closest.candidate().label() + ", " + closest.status());
    }
    return out;
  }

  /**
   * True if a judgment rules its candidate out: its interval lies outside the bound, or crosses it on the runs its
   * check was sized to, or (on fewer runs) it misses the bound on the mean or cannot be shown on that many.
   */
  private static boolean fallsShort(Robustness.Judgment j, int needed) {
    return switch (j.verdict()) {
      case SHOWN -> false;
      case FAILS -> true;
      case NOT_SHOWN -> j.complete() || !j.objective().isMetBy(j.value()) || !Robustness.canStillBeShown(j);
    };
  }

  /**
   * True if {@code a} is further from showing its objective than {@code b}: a worse verdict, then fewer runs
   * than needed, then a smaller margin at the interval's far end.
   */
  private static boolean weaker(Robustness.Judgment a, Robustness.Judgment b, int needed) {
    if (a.verdict() != b.verdict()) {
      return a.verdict().ordinal() > b.verdict().ordinal();
    }
    boolean aShort = !a.complete();
    if (aShort != !b.complete()) {
      return aShort;
    }
    return farMargin(a) < farMargin(b);
  }

  private static double farMargin(Robustness.Judgment j) {
    Evaluation.Interval interval = j.interval();
    return j.objective().margin(j.objective().metric().higherIsBetter() ? interval.low() : interval.high());
  }

  private List<Objective> without(Objective objective) {
    List<Objective> rest = new ArrayList<>(objectives);
    rest.remove(objective);
    return rest;
  }

  private static List<String> texts(List<Objective> objectives) {
    return objectives.stream().map(Objective::toString).toList();
  }

  private static Evaluation best(List<Evaluation> candidates, Objective objective) {
    Comparator<Evaluation> order = Comparator.comparingDouble((Evaluation e) -> objective.margin(
        e.value(objective.metric()))).reversed().thenComparing(e -> e.candidate().label());
    return candidates.stream().min(order).orElseThrow();
  }

  private static String show(Evaluation e, Objective objective) {
    return objective.metric().format(e.value(objective.metric())) + " (" + e.candidate().label() + ")";
  }

  /** The metrics shown: all but goodput, which only a scenario with a capacity has, unless it is asked about. */
  private List<Objective.Metric> columns() {
    boolean goodput = settings.prefer() == Objective.Metric.GOODPUT
        || objectives.stream().anyMatch(o -> o.metric() == Objective.Metric.GOODPUT);
    return java.util.Arrays.stream(Objective.Metric.values())
        .filter(m -> goodput || m != Objective.Metric.GOODPUT).toList();
  }

  /** The advice as text, for a terminal (see docs/simulator.md for an example). */
  public String table() {
    StringBuilder out = new StringBuilder();
    out.append("searched ").append(gridRun).append(" of ").append(gridSize).append(" grid candidates and ")
        .append(Values.count(refinementsRun, "refinement", "refinements")).append(": ")
        .append(Values.count(runsUsed, "run", "runs")).append(" of ")
        .append(scenario.seconds()).append("s, ").append(settings.seeds()).append(settings.seeds() == 1 ? " seed each (" : " seeds each (")
        .append(seedRange()).append("); ")
        .append(converged ? "stopped at a local optimum" : "stopped by the run budget (" + settings.runs() + ")")
        .append('\n');
    List<Evaluation> meeting = meeting();
    List<Robustness> checked = checking.checked();
    if (!checked.isEmpty()) {
      out.append(heldOutLine()).append('\n');
      out.append("checked on held-out ").append(screenRange()).append(", then extended: the ")
          .append(checked.size() == 1 ? "best" : checked.size() + " best").append(" of the ").append(meeting.size()).append(meeting.size() == 1 ? " policy" : " policies")
          .append(" meeting every objective on the training seeds (")
          .append(settings.prefer().higherIsBetter() ? "highest " : "lowest ").append(settings.prefer().id())
          .append(" first; identical results counted once while enough others differ), in ")
          .append(Values.count(checking.checks().stream().filter(c -> c.skipped() == null).count(), "check",
              "checks")).append(": ").append(Values.count(checking.runs(), "run", "runs")).append('\n');
      out.append("checks: ").append(String.join(", ", checking.checks().stream().filter(c -> c.skipped() == null)
          .map(Robustness.Check::describe).toList())).append('\n');
      for (Robustness.Check check : checking.checks()) {
        if (check.skipped() != null) {
          out.append("skipped: ").append(check.describe()).append(": ").append(check.skipped()).append('\n');
        }
      }
    }
    out.append("objectives: ").append(String.join(", ", texts(objectives))).append("\n");
    out.append("values: mean over the seeds [95% interval]; recovers: seeds recovered [Wilson 95% interval]\n\n");
    if (meeting.isEmpty()) {
      out.append("no policy met every objective.\n");
      for (String line : binding()) {
        out.append(line).append('\n');
      }
      out.append("\nclosest policies:\n");
      out.append(rows(ranked.subList(0, Math.min(5, ranked.size())), true, null));
      out.append(MARKERS);
    } else {
      if (!robust()) {
        out.append(meeting.size()).append(meeting.size() == 1 ? " policy meets" : " policies meet")
            .append(" every objective on the training seeds, but none of the ").append(checked.size())
            .append(" checked is shown to hold them in every check.\n");
        for (String line : binding()) {
          out.append(line).append('\n');
        }
      } else {
        out.append(checked.get(0).candidate().label()).append(" is shown to hold every objective in every check on ")
            .append(heldOut()).append(" held-out seeds or more; the checked policies, most robust first (shown first, "
            + "then the widest worst-case margin, then the next widest; margins equal to 0.1%: the simpler policy, "
            + "with fewer of a budget, an admission control and hedging):\n");
      }
      out.append("\nheld-out results (the scenario as given; each policy on the held-out seeds it ran):\n");
      List<Evaluation> heldOut = new ArrayList<>();
      List<String> verdicts = new ArrayList<>();
      for (Robustness r : checked) {
        heldOut.add(r.heldOut());
        verdicts.add(shortStatus(r));
      }
      out.append(rows(heldOut, true, verdicts));
      out.append(MARKERS);
      out.append("\nworst case over the training runs and every check (margin: how far inside the bound, relative "
          + "to it; binds: the smallest margin, and where):\n");
      out.append(worstRows(checked));
      out.append("\nverdicts (every objective in every check, from its 95% interval on the check's held-out runs):\n");
      int rank = 1;
      for (Robustness r : checked) {
        out.append(rank++).append("  ").append(r.candidate().label()).append(": ").append(r.status()).append('\n');
      }
    }
    List<Evaluation> front = front();
    List<Evaluation> shown = spread(front, FRONT_SHOWN);
    out.append("\ntrade-off on the training seeds: success-ratio against amplification and p99 (the Pareto front of "
        + "the policies recovering in ").append(Objective.Metric.RECOVERS.format(frontRecovery()))
        .append(" of seeds or more):\n");
    out.append(front.isEmpty() ? "(no policy recovered often enough)\n" : rows(shown, false, null));
    if (shown.size() < front.size()) {
      out.append("(").append(shown.size()).append(" of the front's ").append(front.size())
          .append(" policies, spread evenly by amplification; --format json lists them all)\n");
    }
    Evaluation recommended = recommended();
    if (recommended != null) {
      PolicyCandidate c = recommended.candidate();
      out.append("\nrecommended: ").append(c.label())
          .append(" (the most robust of those checked; margins equal to 0.1%: the simpler policy)\n\nJava:\n");
      for (String line : c.javaCode().split("\n", -1)) {
        out.append(line.isEmpty() ? "" : "  " + line).append('\n');
      }
      out.append("simulate (its training runs, then its held-out runs):\n");
      for (Robustness.Check check : java.util.Arrays.asList(null, checking.checks().get(0))) {
        out.append("  backoff simulate");
        for (String argument : simulateCommand(c, check)) {
          out.append(' ').append(shellWord(argument));
        }
        out.append('\n');
      }
      out.append("\nSpring (application.properties):\n");
      for (Map.Entry<String, String> property : c.springProperties(SPRING_NAME).entrySet()) {
        out.append("  ").append(property.getKey()).append('=').append(property.getValue()).append('\n');
      }
    }
    return out.toString();
  }

  private String screenRange() {
    long first = scenario.seed + settings.seeds();
    int screen = Math.min(settings.seeds(), heldOut());
    return screen == 1 ? "seed " + first : "seeds " + first + ".." + (first + screen - 1);
  }

  /** How many held-out seeds a check needs, and why. */
  private String heldOutLine() {
    int needed = heldOut();
    long first = scenario.seed + settings.seeds();
    StringBuilder line = new StringBuilder("held-out seeds per check: ").append(needed).append(" (")
        .append(needed == 1 ? "seed " + first : "seeds " + first + ".." + (first + needed - 1)).append(")");
    Objective sizing = null;
    for (Objective objective : objectives) {
      if (sizing == null || Robustness.seedsToShow(objective) > Robustness.seedsToShow(sizing)) {
        sizing = objective;
      }
    }
    int toShow = Robustness.seedsToShow(sizing);
    if (settings.heldOutSeeds() != Advisor.Settings.SIZED) {
      line.append(", as asked");
      if (toShow > needed) {
        line.append("; too few to show ").append(sizing).append(", which needs ")
            .append(toShow == Integer.MAX_VALUE ? "more than " + Robustness.MOST_HELD_OUT : toShow);
      }
    } else if (toShow > settings.seeds()) {
      line.append(", the fewest on which ").append(sizing).append(" can be shown (").append(needed)
          .append(" recovered of ").append(needed).append(": Wilson 95% interval from ")
          .append(Values.format(Stats.wilson(needed, needed).lower(), 3)).append(")");
    } else {
      line.append(", as many as the training seeds");
    }
    if (sizedBeyond()) {
      line.append("; a check is extended further, up to ").append(Robustness.MOST_FOR_A_MEAN)
          .append(", when a mean objective's interval needs more runs to clear its bound at the runs' spread");
    }
    return line.toString();
  }

  /** The held-out table's verdict column. */
  private static String shortStatus(Robustness r) {
    if (r.robust()) {
      return "shown";
    }
    Robustness.Judgment weakness = r.firstWeakness();
    return switch (r.stage()) {
      case SCREENED_OUT -> "screened out (" + Values.count(r.heldOut().runs().size(), "seed", "seeds") + ")";
      case EXTENDED -> weakness == null ? "no" : weakness.verdict().text() + ": " + weakness.check() + " ("
          + Values.count(weakness.runs(), "seed", "seeds") + ")";
    };
  }

  private String worstRows(List<Robustness> checked) {
    List<String[]> rows = new ArrayList<>();
    List<String> header = new ArrayList<>(List.of("#", "policy", "attempts", "budget"));
    for (Objective objective : objectives) {
      header.add(objective.toString());
    }
    header.add("binds");
    rows.add(header.toArray(String[]::new));
    int rank = 1;
    for (Robustness r : checked) {
      PolicyCandidate c = r.candidate();
      List<String> row = new ArrayList<>(List.of(Integer.toString(rank++), c.policySpec(),
          c.maxAttempts() == null ? "preset" : Integer.toString(c.maxAttempts()),
          c.budget() == null ? "-" : c.budget()));
      for (Robustness.Worst w : r.worst()) {
        row.add(w.objective().metric().format(w.value()) + " (" + w.check() + ") " + signedPercent(w.margin())
            + (w.met() ? "" : " !"));
      }
      Robustness.Worst binds = r.binding();
      row.add(binds.objective().metric().id() + " (" + binds.check() + ")");
      rows.add(row.toArray(String[]::new));
    }
    return layout(rows);
  }

  private static String signedPercent(double margin) {
    if (Double.isInfinite(margin)) {
      return margin > 0 ? "+inf" : "-inf";
    }
    String text = Values.format(100 * margin, 1);
    return (text.startsWith("-") ? text : "+" + text) + "%";
  }

  /** At most {@code most} items spread evenly over the list, the first and last included. */
  static <T> List<T> spread(List<T> items, int most) {
    if (items.size() <= most) {
      return items;
    }
    List<T> out = new ArrayList<>();
    for (int i = 0; i < most; i++) {
      out.add(items.get((int) Math.round((double) i * (items.size() - 1) / (most - 1))));
    }
    return out;
  }

  private String seedRange() {
    long first = scenario.seed;
    return settings.seeds() == 1 ? "seed " + first : "seeds " + first + ".." + (first + settings.seeds() - 1);
  }

  private static String shellWord(String word) {
    return word.matches("[A-Za-z0-9_.:,+=/@%-]+") ? word : "'" + word.replace("'", "'\\''") + "'";
  }

  /** A table of evaluations; {@code robust}: a column of verdicts after the budget, or null for none. */
  private String rows(List<Evaluation> evaluations, boolean numbered, List<String> robust) {
    List<String[]> rows = new ArrayList<>();
    List<String> header = new ArrayList<>();
    if (numbered) {
      header.add("#");
    }
    header.add("policy");
    header.add("attempts");
    header.add("budget");
    if (robust != null) {
      header.add("robust");
    }
    for (Objective.Metric metric : columns()) {
      header.add(metric.id());
    }
    rows.add(header.toArray(String[]::new));
    int rank = 1;
    for (Evaluation e : evaluations) {
      List<String> row = new ArrayList<>();
      if (numbered) {
        row.add(Integer.toString(rank++));
      }
      PolicyCandidate c = e.candidate();
      row.add(c.policySpec());
      row.add(c.maxAttempts() == null ? "preset" : Integer.toString(c.maxAttempts()));
      row.add(c.budget() == null ? "-" : c.budget());
      if (robust != null) {
        row.add(robust.get(evaluations.indexOf(e)));
      }
      for (Objective.Metric metric : columns()) {
        row.add(cell(e, metric) + marker(e, metric));
      }
      rows.add(row.toArray(String[]::new));
    }
    return layout(rows);
  }

  private static String layout(List<String[]> rows) {
    String[] header = rows.get(0);
    int[] widths = new int[header.length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (int r = 0; r < rows.size(); r++) {
      String[] row = rows.get(r);
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        line.append(i == 0 ? "" : "  ").append(row[i]).append(" ".repeat(widths[i] - row[i].length()));
      }
      out.append(line.toString().stripTrailing()).append('\n');
      if (r == 0) {
        StringBuilder rule = new StringBuilder();
        for (int i = 0; i < widths.length; i++) {
          rule.append(i == 0 ? "" : "  ").append("-".repeat(widths[i]));
        }
        out.append(rule).append('\n');
      }
    }
    return out.toString();
  }

  /** {@code !} for a value missing its objective, {@code *} for one meeting it with an interval crossing the bound. */
  private String marker(Evaluation e, Objective.Metric metric) {
    for (Objective objective : objectives) {
      if (objective.metric() == metric) {
        return !objective.isMetBy(e.value(metric)) ? " !" : e.surelyMeets(objective) ? "" : " *";
      }
    }
    return "";
  }

  static final String MARKERS = "!: misses its objective; *: meets it on the mean, but the 95% interval reaches past "
      + "the bound (more --seeds would tell)\n";

  private static String cell(Evaluation e, Objective.Metric metric) {
    Evaluation.Interval interval = e.interval(metric);
    if (metric == Objective.Metric.RECOVERS) {
      return e.recoveredRuns() + "/" + e.runs().size() + " [" + Values.format(interval.low(), 2) + "-"
          + Values.format(interval.high(), 2) + "]";
    }
    String value = metric.format(e.value(metric));
    if (Double.isNaN(interval.low()) || interval.low() == interval.high()
        || (Double.isInfinite(interval.low()) && Double.isInfinite(interval.high()))) {
      return value;
    }
    // No metric is negative. Amplification can be below 1: an admission control refuses some requests before
    // their first attempt, so its interval is not cut at 1 (that showed [1.00-0.93] around 0.92).
    return value + " [" + metric.format(Math.max(interval.low(), 0)) + "-" + metric.format(interval.high()) + "]";
  }

  /** The advice as one JSON object (see docs/simulator.md for its fields). */
  public String json() {
    Json json = Json.compact().object();
    json.field("objectives").array();
    for (Objective objective : objectives) {
      json.string(objective.toString());
    }
    json.endArray();
    json.field("search").object().field("seeds").number(settings.seeds()).field("firstSeed").number(scenario.seed)
        .field("runBudget").number(settings.runs()).field("runs").number(runsUsed)
        .field("prefer").string(settings.prefer().id())
        .field("gridCandidates").number(gridSize).field("gridRun").number(gridRun)
        .field("refinements").number(refinementsRun).field("converged").bool(converged).endObject();
    json.field("met").bool(met());
    json.field("robust").bool(robust());
    checkingJson(json);
    json.field("binding").array();
    for (String line : binding()) {
      json.string(line);
    }
    json.endArray();
    json.field("meeting").array();
    for (Evaluation e : meeting()) {
      evaluation(json, e);
    }
    json.endArray();
    json.field("front").array();
    for (Evaluation e : front()) {
      evaluation(json, e);
    }
    json.endArray();
    json.field("closest").array();
    if (!met()) {
      for (Evaluation e : ranked.subList(0, Math.min(5, ranked.size()))) {
        evaluation(json, e);
      }
    }
    json.endArray();
    Evaluation recommended = recommended();
    json.field("recommended");
    if (recommended == null) {
      json.nullValue();
    } else {
      PolicyCandidate c = recommended.candidate();
      json.object().field("policy").string(c.policySpec()).field("maxAttempts").number(c.maxAttempts())
          .field("budget").string(c.budget())
        .field("protection").string(c.protection().id()).field("hedging").string(c.hedge().id()).field("java").string(c.javaCode());
      json.field("simulateArguments").array();
      for (String argument : c.simulateArguments()) {
        json.string(argument);
      }
      json.endArray();
      simulateCommandsJson(json, c);
      json.field("springProperties").object();
      for (Map.Entry<String, String> property : c.springProperties(SPRING_NAME).entrySet()) {
        json.field(property.getKey()).string(property.getValue());
      }
      json.endObject().endObject();
    }
    return json.endObject().toString() + "\n";
  }

  /**
   * The {@code simulateCommands} field: the command reproducing a candidate's training runs, then one per check
   * that ran, on the full held-out count.
   */
  private void simulateCommandsJson(Json json, PolicyCandidate c) {
    json.field("simulateCommands").array();
    json.object().field("check").string(Robustness.TRAINING).field("arguments").array();
    simulateCommand(c, null).forEach(json::string);
    json.endArray().endObject();
    for (Robustness.Check check : checking.checks()) {
      if (check.skipped() == null) {
        json.object().field("check").string(check.name()).field("arguments").array();
        simulateCommand(c, check).forEach(json::string);
        json.endArray().endObject();
      }
    }
    json.endArray();
  }

  private void checkingJson(Json json) {
    json.field("checking").object().field("heldOutFirstSeed").number(scenario.seed + settings.seeds())
        .field("screenSeeds").number(Math.min(settings.seeds(), heldOut())).field("seeds").number(heldOut())
        .field("runs").number(checking.runs()).field("checks").array();
    for (Robustness.Check check : checking.checks()) {
      json.object().field("name").string(check.name()).field("keys").object();
      check.keys().forEach((key, value) -> json.field(key).string(value));
      json.endObject().field("skipped").string(check.skipped()).endObject();
    }
    json.endArray().field("checked").array();
    for (Robustness r : checking.checked()) {
      PolicyCandidate c = r.candidate();
      json.object().field("policy").string(c.policySpec()).field("maxAttempts").number(c.maxAttempts())
          .field("budget").string(c.budget())
        .field("protection").string(c.protection().id()).field("hedging").string(c.hedge().id()).field("robust").bool(r.robust()).field("stage").string(r.stage().name().toLowerCase(java.util.Locale.ROOT)
              .replace('_', '-')).field("status").string(r.status())
          .field("training").object();
      metrics(json, r.training());
      json.endObject().field("checks").array();
      for (Robustness.Result result : r.results()) {
        json.object().field("check").string(result.check().name());
        metrics(json, result.evaluation());
        json.endObject();
      }
      json.endArray().field("judgments").array();
      for (Robustness.Judgment j : r.judgments()) {
        json.object().field("objective").string(j.objective().toString()).field("check").string(j.check())
            .field("runs").number(j.runs()).field("needed").number(j.needed()).field("value").decimal(j.value(), 4)
            .field("low").decimal(j.interval().low(), 4).field("high").decimal(j.interval().high(), 4)
            .field("verdict").string(j.verdict().text()).endObject();
      }
      json.endArray().field("worst").array();
      for (Robustness.Worst w : r.worst()) {
        json.object().field("objective").string(w.objective().toString()).field("value").decimal(w.value(), 4)
            .field("check").string(w.check()).field("margin").decimal(w.margin(), 4).field("met").bool(w.met())
            .endObject();
      }
      Robustness.Worst binds = r.binding();
      json.endArray().field("binds").object().field("objective").string(binds.objective().toString())
          .field("check").string(binds.check()).field("margin").decimal(binds.margin(), 4).endObject();
      simulateCommandsJson(json, c);
      json.endObject();
    }
    json.endArray().endObject();
  }

  private void evaluation(Json json, Evaluation e) {
    PolicyCandidate c = e.candidate();
    json.object().field("policy").string(c.policySpec()).field("maxAttempts").number(c.maxAttempts())
        .field("budget").string(c.budget())
        .field("protection").string(c.protection().id()).field("hedging").string(c.hedge().id());
    metrics(json, e);
    json.endObject();
  }

  private void metrics(Json json, Evaluation e) {
    json.field("recoveredRuns").number(e.recoveredRuns()).field("runs").number(e.runs().size());
    json.field("metrics").object();
    for (Objective.Metric metric : columns()) {
      Evaluation.Interval interval = e.interval(metric);
      json.field(metric.id()).object().field("value").decimal(e.value(metric), 4)
          .field("low").decimal(interval.low(), 4).field("high").decimal(interval.high(), 4).endObject();
    }
    json.endObject();
  }
}
