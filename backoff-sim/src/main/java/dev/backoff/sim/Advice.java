package dev.backoff.sim;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * What the {@linkplain Advisor advisor} found: every candidate it ran, ranked; those meeting every objective;
 * the Pareto front of success ratio against amplification and p99 among the recovering candidates; the recommended
 * policy with its Java code, {@code simulate} arguments and Spring properties; or, when nothing met the
 * objectives, which objective binds. {@link #table()} and {@link #json()} write it for people and tools, the
 * same bytes for the same advice. Immutable and thread-safe.
 */
public final class Advice {
  /** The name the recommended policy gets in its Spring properties ({@code backoff.policies.advised.*}). */
  public static final String SPRING_NAME = "advised";
  /** How many of the candidates meeting every objective the table lists. */
  static final int LISTED = 10;
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

  Advice(Scenario scenario, List<Objective> objectives, Advisor.Settings settings, List<Evaluation> ranked,
      int gridSize, int gridRun, int refinementsRun, int runsUsed, boolean converged) {
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

  /** The best candidate meeting every objective, or null if none did. */
  public Evaluation recommended() {
    return met() ? ranked.get(0) : null;
  }

  /** Simulation runs spent. */
  public int runsUsed() {
    return runsUsed;
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
    List<String> out = new ArrayList<>();
    if (met() || ranked.isEmpty()) {
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

  private static final Objective.Metric[] COLUMNS = Objective.Metric.values();

  /** The advice as text, for a terminal (see docs/simulator.md for an example). */
  public String table() {
    StringBuilder out = new StringBuilder();
    out.append("searched ").append(gridRun).append(" of ").append(gridSize).append(" grid candidates and ")
        .append(refinementsRun).append(" refinements: ").append(runsUsed).append(" runs of ")
        .append(scenario.seconds()).append(" s, ").append(settings.seeds()).append(settings.seeds() == 1 ? " seed each (" : " seeds each (")
        .append(seedRange()).append("); ")
        .append(converged ? "stopped at a local optimum" : "stopped by the run budget (" + settings.runs() + ")")
        .append('\n');
    out.append("objectives: ").append(String.join(", ", texts(objectives))).append("\n");
    out.append("values: mean over the seeds [95% interval]; recovers: seeds recovered [Wilson 95% interval]\n\n");
    List<Evaluation> meeting = meeting();
    if (meeting.isEmpty()) {
      out.append("no policy met every objective.\n");
      for (String line : binding()) {
        out.append(line).append('\n');
      }
      out.append("\nclosest policies:\n");
      out.append(rows(ranked.subList(0, Math.min(5, ranked.size())), true));
    } else {
      out.append(meeting.size()).append(meeting.size() == 1 ? " policy meets" : " policies meet")
          .append(" every objective, best first (")
          .append(settings.prefer().higherIsBetter() ? "highest " : "lowest ").append(settings.prefer().id())
          .append(", then the widest margin)").append(meeting.size() > LISTED ? "; the first " + LISTED + ":" : ":")
          .append('\n');
      out.append(rows(meeting.subList(0, Math.min(LISTED, meeting.size())), true));
    }
    out.append(MARKERS);
    List<Evaluation> front = front();
    List<Evaluation> shown = spread(front, FRONT_SHOWN);
    out.append("\ntrade-off: success-ratio against amplification and p99 (the Pareto front of the policies "
        + "recovering in ").append(Objective.Metric.RECOVERS.format(frontRecovery())).append(" of seeds or more):\n");
    out.append(front.isEmpty() ? "(no policy recovered often enough)\n" : rows(shown, false));
    if (shown.size() < front.size()) {
      out.append("(").append(shown.size()).append(" of the front's ").append(front.size())
          .append(" policies, spread evenly by amplification; --format json lists them all)\n");
    }
    Evaluation recommended = recommended();
    if (recommended != null) {
      PolicyCandidate c = recommended.candidate();
      out.append("\nrecommended: ").append(c.label()).append("\n\nJava:\n");
      for (String line : c.javaCode().split("\n", -1)) {
        out.append(line.isEmpty() ? "" : "  " + line).append('\n');
      }
      out.append("simulate:\n  backoff simulate");
      for (String argument : c.simulateArguments()) {
        out.append(' ').append(shellWord(argument));
      }
      out.append("\n\nSpring (application.properties):\n");
      for (Map.Entry<String, String> property : c.springProperties(SPRING_NAME).entrySet()) {
        out.append("  ").append(property.getKey()).append('=').append(property.getValue()).append('\n');
      }
    }
    return out.toString();
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
    return word.matches("[A-Za-z0-9_.:,+=/-]+") ? word : "'" + word.replace("'", "'\\''") + "'";
  }

  private String rows(List<Evaluation> evaluations, boolean numbered) {
    List<String[]> rows = new ArrayList<>();
    List<String> header = new ArrayList<>();
    if (numbered) {
      header.add("#");
    }
    header.add("policy");
    header.add("attempts");
    header.add("budget");
    for (Objective.Metric metric : COLUMNS) {
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
      for (Objective.Metric metric : COLUMNS) {
        row.add(cell(e, metric) + marker(e, metric));
      }
      rows.add(row.toArray(String[]::new));
    }
    int[] widths = new int[header.size()];
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
    return value + " [" + metric.format(Math.max(interval.low(), lowest(metric))) + "-"
        + metric.format(interval.high()) + "]";
  }

  /** The smallest value a metric can take, so an interval never shows a negative latency or amplification below 1. */
  private static double lowest(Objective.Metric metric) {
    return metric == Objective.Metric.AMPLIFICATION ? 1 : 0;
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
          .field("budget").string(c.budget()).field("java").string(c.javaCode());
      json.field("simulateArguments").array();
      for (String argument : c.simulateArguments()) {
        json.string(argument);
      }
      json.endArray().field("springProperties").object();
      for (Map.Entry<String, String> property : c.springProperties(SPRING_NAME).entrySet()) {
        json.field(property.getKey()).string(property.getValue());
      }
      json.endObject().endObject();
    }
    return json.endObject().toString() + "\n";
  }

  private static void evaluation(Json json, Evaluation e) {
    PolicyCandidate c = e.candidate();
    json.object().field("policy").string(c.policySpec()).field("maxAttempts").number(c.maxAttempts())
        .field("budget").string(c.budget()).field("recoveredRuns").number(e.recoveredRuns())
        .field("runs").number(e.runs().size());
    json.field("metrics").object();
    for (Objective.Metric metric : COLUMNS) {
      Evaluation.Interval interval = e.interval(metric);
      json.field(metric.id()).object().field("value").decimal(e.value(metric), 4)
          .field("low").decimal(interval.low(), 4).field("high").decimal(interval.high(), 4).endObject();
    }
    json.endObject().endObject();
  }
}
