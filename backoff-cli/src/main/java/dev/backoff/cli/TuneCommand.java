package dev.backoff.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.backoff.plan.GeometricSchedule;
import dev.backoff.plan.MultiplierSolution;
import dev.backoff.plan.Position;
import dev.backoff.plan.RetryComparison;
import dev.backoff.plan.Solver;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code backoff tune}: four tuning questions about a geometric schedule (interval, deadline, locate,
 * compare), chosen by which flags are given.
 */
@Command(name = "tune", mixinStandardHelpOptions = true, versionProvider = BackoffCommand.Version.class,
    description = {"Answer one tuning question about an exponential schedule, chosen by the flags given.",
        "Schedule: first sleep a (--initial), multiplier r, retry n at elapsed time",
        "T_n = a(r^n - 1)/(r - 1); attempt durations are ignored. The questions:",
        "  interval  --initial --elapsed --interval: the multiplier for which the",
        "            sleep after the retry at --elapsed is --interval",
        "  deadline  --initial --retries --deadline: the multiplier for which retry",
        "            --retries happens at --deadline",
        "  locate    --initial --multiplier --at [--cap]: the retry at --at and the",
        "            sleeps before and after it",
        "  compare   --initial --multiplier --compare-multiplier --elapsed: the",
        "            retries by --elapsed with each multiplier, and their ratio"})
final class TuneCommand implements Callable<Integer> {
  /** Output formats. */
  enum Format { text, json }

  @Spec
  CommandSpec spec;

  @Option(names = "--initial", paramLabel = "<duration>", converter = DurationConverter.class, description = "First sleep, a (every question).")
  Duration initial;

  @Option(names = "--elapsed", paramLabel = "<duration>", converter = DurationConverter.class,
      description = "Elapsed time (the interval and compare questions).")
  Duration elapsed;

  @Option(names = "--interval", paramLabel = "<duration>", converter = DurationConverter.class,
      description = "Wanted sleep after the retry at --elapsed (the interval question).")
  Duration interval;

  @Option(names = "--retries", paramLabel = "<count>", description = "Retries that must fit the deadline (the deadline question).")
  Integer retries;

  @Option(names = "--deadline", paramLabel = "<duration>", converter = DurationConverter.class,
      description = "When retry --retries must happen (the deadline question).")
  Duration deadline;

  @Option(names = "--multiplier", paramLabel = "<number>", description = "Multiplier r (the locate and compare questions).")
  Double multiplier;

  @Option(names = "--at", paramLabel = "<duration>", converter = DurationConverter.class,
      description = "Elapsed time to locate (the locate question).")
  Duration at;

  @Option(names = "--cap", paramLabel = "<duration>", converter = DurationConverter.class,
      description = "Cap on the sleeps (the locate question only).")
  Duration cap;

  @Option(names = "--compare-multiplier", paramLabel = "<number>", description = "The other multiplier (the compare question).")
  Double compareMultiplier;

  @Option(names = "--format", paramLabel = "text|json", defaultValue = "text",
      description = "text or json. Default ${DEFAULT-VALUE}.")
  Format format;

  private static final String[][] QUESTIONS = {
    {"--elapsed", "--interval"},
    {"--retries", "--deadline"},
    {"--multiplier", "--at"},
    {"--multiplier", "--compare-multiplier", "--elapsed"},
  };
  private static final String[] OPTIONAL = {"", "", "--cap", ""};

  @Override
  public Integer call() throws Exception {
    if (initial == null) {
      throw new Errors.UsageException("--initial is required for every question");
    }
    int question = question(given());
    Map<String, Object> json = new LinkedHashMap<>();
    String answer;
    String explanation;
    switch (question) {
      case 0 -> {
        MultiplierSolution solution = Solver.multiplierForInterval(initial, elapsed, interval);
        double estimate = solution.estimate().getAsDouble();
        json.put("multiplier", Numbers.ratio(solution.multiplier()));
        json.put("multiplierMinusOne", excessJson(solution.excess()));
        json.put("estimatedMultiplier", Numbers.ratio(estimate));
        answer = "multiplier " + multiplierText(solution);
        explanation = "r = 1 + (interval - initial)/elapsed, from t(n+1) = a + (r - 1)·T(n): a retry at "
            + seconds(elapsed) + " is followed by a sleep of " + seconds(interval) + " (the rule of thumb "
            + "1 + interval/elapsed gives " + Numbers.text(estimate) + ")";
      }
      case 1 -> {
        if (retries < 1) {
          throw new Errors.UsageException("--retries must be at least 1, was " + retries);
        }
        MultiplierSolution solution = Solver.multiplierForDeadline(initial, retries, deadline);
        // The claim printed is checked back against the schedule a policy would really run: the double
        // multiplier may miss the deadline where r − 1 is tiny, and then the text says by how much.
        double reached = GeometricSchedule.of(initial, solution.multiplier()).elapsedSeconds(retries);
        json.put("multiplier", Numbers.ratio(solution.multiplier()));
        json.put("multiplierMinusOne", excessJson(solution.excess()));
        json.put("retryElapsedSeconds", Numbers.seconds(reached));
        answer = "multiplier " + multiplierText(solution);
        String reachedText = Numbers.text(reached) + "s";
        explanation = "solves a(r^N - 1)/(r - 1) = D: with initial " + seconds(initial) + ", retry " + retries
            + " happens at " + seconds(deadline) + " (sleeps only)"
            + (reachedText.equals(seconds(deadline)) ? ""
                : "; a policy's multiplier is a double, " + Double.toString(solution.multiplier())
                    + ", which reaches retry " + retries + " at " + reachedText);
      }
      case 2 -> {
        requireMultiplier("--multiplier", multiplier);
        GeometricSchedule schedule = cap == null ? GeometricSchedule.of(initial, multiplier)
            : GeometricSchedule.of(initial, multiplier, cap);
        Position position = Solver.positionAt(schedule, at);
        json.put("retry", position.retry());
        json.put("previousDelaySeconds", Numbers.seconds(position.previousDelaySeconds()));
        json.put("nextDelaySeconds", Numbers.seconds(position.nextDelaySeconds()));
        json.put("retryElapsedSeconds", Numbers.seconds(position.retryElapsedSeconds()));
        json.put("nextRetryElapsedSeconds", Numbers.seconds(position.nextRetryElapsedSeconds()));
        // Two different times or sleeps never print as the same text (10 significant digits could).
        String[] sleeps = Numbers.distinct(position.previousDelaySeconds(), position.nextDelaySeconds());
        String[] retryTimes = Numbers.distinct(position.retryElapsedSeconds(), position.nextRetryElapsedSeconds());
        answer = "retry " + position.retry() + ": sleep before " + sleeps[0] + "s, sleep after " + sleeps[1] + "s";
        explanation = position.retry() == 0
            ? "at " + seconds(at) + " no retry has happened yet; the first comes at " + retryTimes[1] + "s"
            : "at " + seconds(at) + " the last retry was number " + position.retry() + " (at " + retryTimes[0]
                + "s); the next comes at " + retryTimes[1] + "s";
      }
      default -> {
        requireMultiplier("--multiplier", multiplier);
        requireMultiplier("--compare-multiplier", compareMultiplier);
        RetryComparison comparison = Solver.compareRetries(initial, multiplier, compareMultiplier, elapsed);
        Map<String, Object> counts = new LinkedHashMap<>();
        counts.put(Numbers.ratio(multiplier).toPlainString(), comparison.retries());
        counts.put(Numbers.ratio(compareMultiplier).toPlainString(), comparison.compareRetries());
        json.put("retries", counts);
        json.put("ratio", comparison.ratio().isPresent() ? Numbers.ratio(comparison.ratio().getAsDouble()) : null);
        json.put("estimatedRatio",
            comparison.estimatedRatio().isPresent() ? Numbers.ratio(comparison.estimatedRatio().getAsDouble()) : null);
        answer = "by " + seconds(elapsed) + ": " + comparison.retries() + " retries with multiplier "
            + Numbers.text(multiplier) + ", " + comparison.compareRetries() + " with " + Numbers.text(compareMultiplier)
            + "; ratio " + (comparison.ratio().isPresent() ? Numbers.text(comparison.ratio().getAsDouble())
                : "undefined (no retry with " + Numbers.text(multiplier) + ")");
        explanation = "exact counts from T_n <= T; the large-T estimate log r / log r2 = "
            + (comparison.estimatedRatio().isPresent() ? Numbers.text(comparison.estimatedRatio().getAsDouble())
                : "undefined (r2 = 1)")
            + " is the limit for large T; at finite T the constant terms of n = log_r(1 + (r - 1)·T/a) count";
      }
    }
    PrintWriter out = spec.commandLine().getOut();
    if (format == Format.json) {
      ObjectMapper mapper = ScheduleCommand.Json.mapper();
      ObjectNode node = mapper.valueToTree(json);
      out.println(mapper.writeValueAsString(node));
    } else {
      out.println(answer);
      out.println(explanation);
    }
    out.flush();
    return 0;
  }

  /**
   * The multiplier for people: three decimals as usual while they keep two digits of {@code r − 1};
   * closer to 1, {@code 1 + (r − 1)} with four significant digits, so that a multiplier such as
   * {@code 1 + 1.275e-8} never reads as exactly 1 (a claim false for 1).
   */
  static String multiplierText(MultiplierSolution solution) {
    double excess = solution.excess();
    if (excess == 0 || excess >= 0.01) {
      return Numbers.text(solution.multiplier());
    }
    BigDecimal digits = new BigDecimal(excess).round(new MathContext(4, RoundingMode.HALF_EVEN)).stripTrailingZeros();
    return "1 + " + (excess >= 1e-4 ? digits.toPlainString() : digits.toString().replace("E", "e"));
  }

  /** {@code r − 1} with ten significant digits, for JSON (exponent notation for tiny values). */
  private static BigDecimal excessJson(double excess) {
    return new BigDecimal(excess).round(new MathContext(10, RoundingMode.HALF_EVEN)).stripTrailingZeros();
  }

  private static void requireMultiplier(String flag, double value) {
    if (!(value >= 1) || Double.isInfinite(value)) {
      throw new Errors.UsageException(flag + " must be a finite number of at least 1, was " + value);
    }
  }

  private static String seconds(Duration duration) {
    return Numbers.text(duration.getSeconds() + duration.getNano() / 1e9) + "s";
  }

  private List<String> given() {
    List<String> flags = new ArrayList<>();
    if (elapsed != null) {
      flags.add("--elapsed");
    }
    if (interval != null) {
      flags.add("--interval");
    }
    if (retries != null) {
      flags.add("--retries");
    }
    if (deadline != null) {
      flags.add("--deadline");
    }
    if (multiplier != null) {
      flags.add("--multiplier");
    }
    if (at != null) {
      flags.add("--at");
    }
    if (cap != null) {
      flags.add("--cap");
    }
    if (compareMultiplier != null) {
      flags.add("--compare-multiplier");
    }
    return flags;
  }

  /** The one question the flags ask, or a usage error naming the contradictory or missing flags. */
  static int question(List<String> given) {
    List<Integer> complete = new ArrayList<>();
    for (int q = 0; q < QUESTIONS.length; q++) {
      if (given.containsAll(List.of(QUESTIONS[q]))) {
        complete.add(q);
      }
    }
    // A question asked with extra flags of another question is contradictory; the compare question contains
    // the locate question's --multiplier and the interval question's --elapsed, so prefer the complete
    // question that explains every flag.
    for (int q : complete) {
      List<String> allowed = new ArrayList<>(List.of(QUESTIONS[q]));
      allowed.add(OPTIONAL[q]);
      if (allowed.containsAll(given)) {
        return q;
      }
    }
    if (!complete.isEmpty()) {
      List<String> allowed = new ArrayList<>(List.of(QUESTIONS[complete.get(0)]));
      allowed.add(OPTIONAL[complete.get(0)]);
      List<String> extra = new ArrayList<>(given);
      extra.removeAll(allowed);
      throw new Errors.UsageException("contradictory flags: " + String.join(" ", given) + " ask more than one "
          + "question (" + String.join(" ", extra) + " do not belong to question " + (complete.get(0) + 1)
          + "); ask one question at a time");
    }
    if (given.isEmpty()) {
      throw new Errors.UsageException("no question asked: give --elapsed and --interval, --retries and "
          + "--deadline, --multiplier and --at, or --multiplier, --compare-multiplier and --elapsed");
    }
    // Name what is missing for the question closest to the flags given.
    int best = 0;
    int bestOverlap = -1;
    for (int q = 0; q < QUESTIONS.length; q++) {
      int overlap = 0;
      for (String flag : QUESTIONS[q]) {
        overlap += given.contains(flag) ? 1 : 0;
      }
      if (overlap > bestOverlap) {
        best = q;
        bestOverlap = overlap;
      }
    }
    List<String> missing = new ArrayList<>(List.of(QUESTIONS[best]));
    missing.removeAll(given);
    throw new Errors.UsageException("insufficient flags: " + String.join(" ", given) + " also need "
        + String.join(" and ", missing) + " (question " + (best + 1) + ")");
  }
}
