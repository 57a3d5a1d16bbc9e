package dev.backoff.sim;

import dev.backoff.spec.Durations;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.function.LongConsumer;

/**
 * A sweep: one or two parameters varied over ranges, every point × policy × seed run in parallel
 * ({@link Runs}), each point's policies summarised over the seeds as in {@link Confidence}.
 *
 * <p>A parameter ({@link Parameter#parse}) is written {@code KEY=A..B:STEP} (from A to B in steps of STEP, B
 * included when a step lands on it), {@code KEY=A..B} (eleven points: A, B and nine equally spaced between,
 * rounded to whole numbers for counts and to nanoseconds for durations) or {@code KEY=V1,V2,...} (those
 * values). KEY is:
 *
 * <ul>
 *   <li>a scenario key with a number or duration value ({@code clients}, {@code think-mean}, {@code timeout},
 *       {@code rate}, {@code workers}, {@code duration}, ...); any scenario key except {@code seed},
 *       {@code policies} and {@code faults} takes a list of values ({@code server=knee,pool});
 *   <li>a fault type, {@code pause}, {@code crash}, {@code capacity} or {@code latency}: the length of the
 *       scenario's first fault of that type;
 *   <li>a policy parameter, {@code initial}, {@code multiplier}, {@code cap}, {@code increment} or
 *       {@code jitter-factor}: set in every policy's spec ({@code full-jitter:100ms:20s} with
 *       {@code initial=50ms} runs {@code full-jitter:50ms:20s}); a policy without that parameter (a preset, an
 *       experiment policy, {@code fixed} for {@code cap}) is refused, naming it.
 * </ul>
 *
 * Every point's scenario and policies are built and checked before anything runs. Immutable and thread-safe;
 * the results are the same for any thread count.
 */
public final class Sweep {
  /** The most points one parameter may take. */
  public static final int MAX_POINTS = 1000;
  /** The most runs (points × policies × seeds) one sweep may make. */
  public static final long MAX_RUNS = 1_000_000;

  private final Scenario scenario;
  private final List<Parameter> parameters;
  private final int seeds;
  private final List<Point> points;

  private Sweep(Scenario scenario, List<Parameter> parameters, int seeds, List<Point> points) {
    this.scenario = scenario;
    this.parameters = List.copyOf(parameters);
    this.seeds = seeds;
    this.points = List.copyOf(points);
  }

  /** What kind of values a parameter takes. */
  enum Kind { COUNT, NUMBER, DURATION, TEXT }

  /** Where a parameter goes: a scenario key, the length of a fault, or a policy parameter. */
  enum Target { SCENARIO, FAULT, POLICY }

  private static final List<String> POLICY_KEYS = List.of("initial", "multiplier", "cap", "increment", "jitter-factor");
  private static final List<String> FAULT_KEYS = List.of("pause", "crash", "capacity", "latency");

  /**
   * One varied parameter: its key and its values, as text in the scenario syntax. Immutable.
   */
  public static final class Parameter {
    private final String key;
    private final List<String> values;
    private final double[] positions;
    final Kind kind;
    final Target target;

    private Parameter(String key, List<String> values, double[] positions, Kind kind, Target target) {
      this.key = key;
      this.values = List.copyOf(values);
      this.positions = positions;
      this.kind = kind;
      this.target = target;
    }

    /** The key ({@code clients}, {@code pause}, {@code initial}, ...). */
    public String key() {
      return key;
    }

    /** The values, in order, as text ({@code 500}, {@code 5s}, {@code 1.5}). */
    public List<String> values() {
      return values;
    }

    /**
     * Each value as a number for a chart's axis (seconds for durations); for a list of words, its index.
     */
    public double[] positions() {
      return positions.clone();
    }

    /** True if the values are numbers or durations (a line chart's x axis), false for words. */
    public boolean numeric() {
      return kind != Kind.TEXT;
    }

    /**
     * Parses {@code KEY=A..B:STEP}, {@code KEY=A..B} or {@code KEY=V1,V2,...} (see {@link Sweep}).
     *
     * @throws IllegalArgumentException with a one-line message that quotes the parameter, names the bad part
     *     and shows the form to use
     */
    public static Parameter parse(String text) {
      Objects.requireNonNull(text, "text");
      int equals = text.indexOf('=');
      if (equals <= 0) {
        throw bad(text, "not KEY=RANGE; write e.g. clients=500..5000:500, pause=5s..120s:5s or initial=50ms..1s");
      }
      String key = text.substring(0, equals).trim().toLowerCase(Locale.ROOT);
      String range = text.substring(equals + 1).trim();
      Target target = FAULT_KEYS.contains(key) ? Target.FAULT : POLICY_KEYS.contains(key) ? Target.POLICY
          : Target.SCENARIO;
      if (target == Target.SCENARIO) {
        boolean known = false;
        for (Scenario.Key k : Scenario.keys()) {
          known |= k.name().equals(key);
        }
        if (!known) {
          throw bad(text, "unknown key '" + key + "'; use a scenario key (clients, think-mean, timeout, rate, ...), "
              + "a fault type (pause, crash, capacity, latency) or a policy parameter (" + String.join(", ", POLICY_KEYS)
              + ")");
        }
        switch (key) {
          case "seed" -> throw bad(text, "the seeds are set by --seeds (seed i = --seed + i), not swept");
          case "policies" -> throw bad(text, "the policies are compared at every point; set them with --policies");
          case "faults" -> throw bad(text, "vary a fault's length by its type instead, e.g. pause=5s..120s:5s");
          default -> { }
        }
      }
      if (range.isEmpty()) {
        throw bad(text, "no values after '='; write e.g. " + key + "=" + example(kindOf(key, target)));
      }
      Kind kind = kindOf(key, target);
      List<String> values = new ArrayList<>();
      List<Double> positions = new ArrayList<>();
      int dots = range.indexOf("..");
      if (dots >= 0) {
        if (kind == Kind.TEXT) {
          throw bad(text, "'" + key + "' takes words, not a range; list them: " + key + "=a,b");
        }
        String from = range.substring(0, dots).trim();
        String rest = range.substring(dots + 2).trim();
        int colon = rest.indexOf(':');
        String to = colon < 0 ? rest : rest.substring(0, colon).trim();
        String step = colon < 0 ? null : rest.substring(colon + 1).trim();
        expand(text, key, kind, from, to, step, values, positions);
      } else {
        for (String part : range.split(",", -1)) {
          String value = part.trim();
          if (value.isEmpty()) {
            throw bad(text, "an empty value in the list; write " + key + "=" + example(kind));
          }
          positions.add(kind == Kind.TEXT ? (double) values.size() : number(text, key, kind, value, "value").doubleValue()
              / (kind == Kind.DURATION ? 1e9 : 1));
          values.add(kind == Kind.TEXT ? value : render(kind, number(text, key, kind, value, "value")));
        }
        if (values.size() > MAX_POINTS) {
          throw bad(text, values.size() + " values, more than " + MAX_POINTS);
        }
      }
      for (int i = 0; i < values.size(); i++) {
        for (int j = 0; j < i; j++) {
          if (values.get(i).equals(values.get(j))) {
            throw bad(text, "the value " + values.get(i) + " is listed twice");
          }
        }
      }
      double[] at = new double[positions.size()];
      for (int i = 0; i < at.length; i++) {
        at[i] = positions.get(i);
      }
      return new Parameter(key, values, at, kind, target);
    }

    @Override
    public String toString() {
      return key + "=" + String.join(",", values);
    }
  }

  private static Kind kindOf(String key, Target target) {
    if (target == Target.FAULT) {
      return Kind.DURATION;
    }
    if (target == Target.POLICY) {
      return key.equals("multiplier") || key.equals("jitter-factor") ? Kind.NUMBER : Kind.DURATION;
    }
    if (key.equals("max-attempts")) {
      return Kind.COUNT;
    }
    if (key.equals("rate") || key.equals("rate-peak") || key.equals("knee-factor") || key.equals("knee-k")) {
      return Kind.NUMBER;
    }
    String defaultValue = "";
    for (Scenario.Key k : Scenario.keys()) {
      if (k.name().equals(key)) {
        defaultValue = k.defaultValue();
      }
    }
    if (defaultValue.matches("[0-9]+")) {
      return Kind.COUNT;
    }
    try {
      Durations.parseNanos(defaultValue);
      return Kind.DURATION;
    } catch (IllegalArgumentException notADuration) {
      return Kind.TEXT;
    }
  }

  private static String example(Kind kind) {
    return switch (kind) {
      case COUNT -> "500..5000:500";
      case NUMBER -> "1.5..3:0.5";
      case DURATION -> "5s..120s:5s";
      case TEXT -> "a,b";
    };
  }

  /** A count or number as an exact decimal, a duration as nanoseconds. */
  private static BigDecimal number(String text, String key, Kind kind, String value, String part) {
    try {
      return switch (kind) {
        case DURATION -> BigDecimal.valueOf(Durations.parseNanos(value));
        case COUNT -> {
          BigDecimal whole = new BigDecimal(value.replace("_", ""));
          if (whole.signum() != 0 && whole.stripTrailingZeros().scale() > 0) {
            throw new NumberFormatException();
          }
          yield whole;
        }
        default -> new BigDecimal(value.replace("_", ""));
      };
    } catch (NumberFormatException e) {
      throw bad(text, "the " + part + " '" + Values.show(value) + "' is not a " + (kind == Kind.COUNT ? "whole number"
          : "number") + "; write e.g. " + key + "=" + example(kind));
    } catch (IllegalArgumentException e) {
      throw bad(text, "the " + part + " '" + Values.show(value) + "': " + e.getMessage() + "; write e.g. " + key + "="
          + example(kind));
    }
  }

  private static String render(Kind kind, BigDecimal value) {
    return switch (kind) {
      case DURATION -> Durations.format(value.longValueExact());
      case COUNT -> value.toBigIntegerExact().toString();
      default -> value.signum() == 0 ? "0" : value.stripTrailingZeros().toPlainString();
    };
  }

  private static void expand(String text, String key, Kind kind, String fromText, String toText, String stepText,
      List<String> values, List<Double> positions) {
    BigDecimal from = number(text, key, kind, fromText, "start");
    BigDecimal to = number(text, key, kind, toText, "end");
    if (from.signum() < 0) {
      throw bad(text, "the start " + fromText + " is negative; write e.g. " + key + "=" + example(kind));
    }
    if (from.compareTo(to) > 0) {
      throw bad(text, "the range runs backwards (" + fromText + " is after " + toText + "); write " + key + "="
          + toText + ".." + fromText + (stepText == null ? "" : ":" + stepText));
    }
    List<BigDecimal> points = new ArrayList<>();
    if (stepText == null) {
      // Eleven points: A, B and nine between, rounded for counts and durations (duplicates dropped).
      for (int i = 0; i <= 10; i++) {
        BigDecimal point = from.add(to.subtract(from).multiply(BigDecimal.valueOf(i)).divide(BigDecimal.TEN));
        if (kind != Kind.NUMBER) {
          point = point.setScale(0, RoundingMode.HALF_UP);
        }
        if (points.isEmpty() || points.get(points.size() - 1).compareTo(point) != 0) {
          points.add(point);
        }
      }
    } else {
      if (stepText.isEmpty()) {
        throw bad(text, "no step after ':'; write " + key + "=" + fromText + ".." + toText + ":STEP, or leave out "
            + "':' for eleven points");
      }
      BigDecimal step = number(text, key, kind, stepText, "step");
      if (step.signum() <= 0) {
        throw bad(text, "the step " + stepText + " must be positive; write e.g. " + key + "=" + example(kind));
      }
      BigDecimal count = to.subtract(from).divide(step, 0, RoundingMode.FLOOR).add(BigDecimal.ONE);
      if (count.compareTo(BigDecimal.valueOf(MAX_POINTS)) > 0) {
        throw bad(text, count.toPlainString() + " points, more than " + MAX_POINTS + "; use a larger step");
      }
      for (BigDecimal point = from; point.compareTo(to) <= 0; point = point.add(step)) {
        points.add(point);
      }
    }
    for (BigDecimal point : points) {
      values.add(render(kind, point));
      positions.add(point.doubleValue() / (kind == Kind.DURATION ? 1e9 : 1));
    }
  }

  private static IllegalArgumentException bad(String text, String why) {
    return new IllegalArgumentException(Values.show(text) + ": " + why);
  }

  /**
   * One point of the sweep: its parameter values (one per parameter, in order) and each policy over the seeds,
   * in scenario order. Immutable.
   */
  public static final class Point {
    private final List<String> values;
    private final List<Confidence.PolicyStats> policies;

    Point(List<String> values, List<Confidence.PolicyStats> policies) {
      this.values = List.copyOf(values);
      this.policies = List.copyOf(policies);
    }

    /** The parameters' values at this point, in parameter order. */
    public List<String> values() {
      return values;
    }

    /** Each policy (named as in the scenario) over the seeds. */
    public List<Confidence.PolicyStats> policies() {
      return policies;
    }
  }

  /** The runs a sweep makes: every point's scenario, policy and seed, in point, policy, seed order. */
  static final class Plan {
    final List<List<String>> points = new ArrayList<>();
    final List<Runs.Task> tasks = new ArrayList<>();
  }

  /**
   * Builds and checks every run of the sweep without running it.
   *
   * @throws IllegalArgumentException if there is not one or two parameters, a parameter is repeated, or a
   *     point's scenario or policy is invalid (a {@link ScenarioException} naming the parameter, the value and
   *     the problem)
   */
  static Plan plan(Scenario scenario, List<Parameter> parameters, int seeds) {
    Objects.requireNonNull(scenario, "scenario");
    if (parameters.isEmpty() || parameters.size() > 2) {
      throw new IllegalArgumentException("a sweep varies one or two parameters, was " + parameters.size());
    }
    if (parameters.size() == 2 && parameters.get(0).key().equals(parameters.get(1).key())) {
      throw new IllegalArgumentException(parameters.get(1).key() + " is swept twice; give each parameter once");
    }
    Runs.checkSeeds(scenario, seeds);
    long runs = (long) seeds * scenario.policies.size();
    for (Parameter parameter : parameters) {
      runs *= parameter.values().size();
    }
    if (runs > MAX_RUNS) {
      throw new ScenarioException("seeds", "the sweep would make " + runs + " runs (points × policies × seeds), more "
          + "than " + MAX_RUNS + "; use fewer points, policies or seeds");
    }
    Plan plan = new Plan();
    List<String> firstValues = parameters.get(0).values();
    List<String> secondValues = parameters.size() == 2 ? parameters.get(1).values() : List.of("");
    for (String first : firstValues) {
      for (String second : secondValues) {
        List<String> point = parameters.size() == 2 ? List.of(first, second) : List.of(first);
        Scenario at = scenario;
        List<String> policies = scenario.policyNames();
        for (int p = 0; p < parameters.size(); p++) {
          Parameter parameter = parameters.get(p);
          String value = point.get(p);
          try {
            switch (parameter.target) {
              case SCENARIO -> at = at.with(parameter.key(), value);
              case FAULT -> at = withFaultLength(at, parameter.key(), value);
              case POLICY -> policies = withPolicyParameter(policies, parameter.key(), value);
            }
          } catch (ScenarioException e) {
            throw new ScenarioException(null, parameter.key() + "=" + value + ": " + e.getMessage());
          }
        }
        plan.points.add(point);
        for (String policy : policies) {
          for (int i = 0; i < seeds; i++) {
            try {
              plan.tasks.add(Runs.task(at, policy, scenario.seed + i));
            } catch (ScenarioException e) {
              throw new ScenarioException(null, describe(parameters, point) + ": " + e.getMessage());
            }
          }
        }
      }
    }
    return plan;
  }

  static String describe(List<Parameter> parameters, List<String> point) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < parameters.size(); i++) {
      text.append(i == 0 ? "" : ", ").append(parameters.get(i).key()).append('=').append(point.get(i));
    }
    return text.toString();
  }

  private static Scenario withFaultLength(Scenario scenario, String type, String length) {
    List<Object> faults = new ArrayList<>();
    boolean found = false;
    for (Fault fault : scenario.faults) {
      if (!found && fault.type.name().toLowerCase(Locale.ROOT).equals(type)) {
        faults.add(new Fault(fault.type, fault.atNanos, Durations.parseNanos(length), fault.value).spec());
        found = true;
      } else {
        faults.add(fault.spec());
      }
    }
    if (!found) {
      throw new ScenarioException("faults", "the scenario has no " + type + " fault to vary (faults: "
          + (scenario.faults.isEmpty() ? "none" : scenario.faults.toString()) + "); add one, e.g. --faults " + type
          + "@60s+30s" + (type.equals("capacity") ? ":0.5" : type.equals("latency") ? ":500ms" : ""));
    }
    return scenario.with("faults", faults);
  }

  /** The policies with the parameter set in each spec, by the spec language's edit ({@code withParameter}). */
  static List<String> withPolicyParameter(List<String> policies, String key, String value) {
    List<String> out = new ArrayList<>();
    for (String policy : policies) {
      try {
        out.add(dev.backoff.spec.PolicySpec.parse(policy).withParameter(key, value).text());
      } catch (IllegalArgumentException e) {
        String message = e.getMessage();
        throw new ScenarioException("policies", message.contains("has fixed parameters") ? message + "; choose "
            + "strategies with --policies, e.g. --policies full-jitter,exponential:100ms:2:20s" : message);
      }
    }
    return out;
  }


  /** The simulated seconds {@link #run} counts up to (after the same checks). */
  public static long totalSeconds(Scenario scenario, List<Parameter> parameters, int seeds) {
    return Runs.totalSeconds(plan(scenario, parameters, seeds).tasks);
  }

  /** How many runs the sweep makes: points × policies × seeds (after the same checks). */
  public static int runs(Scenario scenario, List<Parameter> parameters, int seeds) {
    return plan(scenario, parameters, seeds).tasks.size();
  }

  /**
   * Runs the sweep: every point × policy × seed on {@code threads} threads.
   *
   * @param parameters one or two parameters
   * @param progress simulated seconds completed over all runs (see {@link Runs#run}); may be null
   * @throws IllegalArgumentException if the parameters are not one or two distinct ones, or {@code threads} is
   *     below 1
   * @throws ScenarioException if a point's scenario or policy is invalid (naming the point), the seeds are bad,
   *     or the runs could need more heap than this JVM has; all before anything runs
   * @throws InterruptedException if interrupted; every run is stopped first
   */
  public static Sweep run(Scenario scenario, List<Parameter> parameters, int seeds, int threads,
      LongConsumer progress) throws InterruptedException {
    Runs.checkThreads(threads);
    Plan plan = plan(scenario, parameters, seeds);
    List<Summary> summaries = Runs.summaries(plan.tasks, threads, progress);
    List<String> names = scenario.policyNames();
    List<Point> points = new ArrayList<>();
    int i = 0;
    for (List<String> point : plan.points) {
      List<Confidence.PolicyStats> stats = new ArrayList<>();
      for (String name : names) {
        stats.add(new Confidence.PolicyStats(name, summaries.subList(i, i + seeds)));
        i += seeds;
      }
      points.add(new Point(point, stats));
    }
    return new Sweep(scenario, parameters, seeds, points);
  }

  /** The base scenario. */
  public Scenario scenario() {
    return scenario;
  }

  /** The parameters varied: one or two. */
  public List<Parameter> parameters() {
    return parameters;
  }

  /** Seeds per point and policy. */
  public int seeds() {
    return seeds;
  }

  /**
   * The points, the first parameter's values outermost: with two parameters, point
   * {@code i * second.values().size() + j} has the first's value {@code i} and the second's {@code j}.
   */
  public List<Point> points() {
    return points;
  }
}
