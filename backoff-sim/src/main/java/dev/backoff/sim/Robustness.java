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
 * re-checked it: its runs on held-out seeds (the next {@code seeds} seeds after the training ones) with the
 * scenario as given, and with the load and the fault length perturbed; for each objective the
 * worst value over the training runs and every check, the check where it was worst, and its margin. A candidate
 * is <em>robust</em> when every objective is met in the training runs and in every check. Immutable and
 * thread-safe.
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

  private final Evaluation training;
  private final List<Result> results;
  private final List<Worst> worst;
  private final double[] sortedMargins;

  Robustness(Evaluation training, List<Result> results, List<Objective> objectives) {
    this.training = training;
    this.results = List.copyOf(results);
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

  /** True if every objective was met in the training runs and in every check. */
  public boolean robust() {
    for (Worst w : worst) {
      if (!w.met()) {
        return false;
      }
    }
    return true;
  }

  /** The first check (or the training runs) in which an objective was missed, or null if robust. */
  public String firstMiss() {
    List<String> order = new ArrayList<>();
    order.add(TRAINING);
    results.forEach(r -> order.add(r.check().name()));
    for (String check : order) {
      Evaluation e = check.equals(TRAINING) ? training : evaluation(check);
      for (Worst w : worst) {
        if (!w.objective().isMetBy(e.value(w.objective().metric()))) {
          return check;
        }
      }
    }
    return null;
  }

  private Evaluation evaluation(String check) {
    for (Result result : results) {
      if (result.check().name().equals(check)) {
        return result.evaluation();
      }
    }
    throw new IllegalArgumentException(check);
  }

  /**
   * Robust first, then the most robust: the worst-case margins compared smallest first (the smallest margin
   * decides; when two candidates tie on it, the next smallest does, and so on).
   */
  static int compare(Robustness a, Robustness b) {
    if (a.robust() != b.robust()) {
      return a.robust() ? -1 : 1;
    }
    for (int i = 0; i < a.sortedMargins.length; i++) {
      int order = Double.compare(b.sortedMargins[i], a.sortedMargins[i]);
      if (order != 0) {
        return order;
      }
    }
    return 0;
  }

  /**
   * The checks for a scenario: the held-out seeds as they are; the load {@link #LOAD_STEP} up and down
   * ({@code clients} in a closed loop, {@code rate} and, with a step, spike or ramp, {@code rate-peak} in an
   * open one); every fault {@link #FAULT_STEP} longer and shorter (none without a fault). A perturbed
   * scenario the simulator refuses (a lengthened fault past the run's end, clients beyond the heap) is kept,
   * skipped, with the reason.
   */
  static List<Check> checks(Scenario base) {
    List<Check> checks = new ArrayList<>();
    checks.add(new Check("held-out", Map.of(), null));
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
      checks.add(check(base, name + " " + percent(sign, LOAD_STEP), keys));
    }
    if (!base.faults.isEmpty()) {
      for (BigDecimal sign : List.of(BigDecimal.ONE, BigDecimal.ONE.negate())) {
        double factor = BigDecimal.ONE.add(FAULT_STEP.multiply(sign)).doubleValue();
        List<String> faults = new ArrayList<>();
        for (Fault fault : base.faults) {
          long length = Math.max(1, Math.round(fault.lengthNanos * factor));
          Fault scaled = new Fault(fault.type, fault.atNanos, length, fault.value);
          faults.add(exactlyReadable(scaled) ? scaled.toString() : scaled.spec());
        }
        checks.add(check(base, "faults " + percent(sign, FAULT_STEP), Map.of("faults", String.join(",", faults))));
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
