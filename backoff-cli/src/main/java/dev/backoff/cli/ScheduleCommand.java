package dev.backoff.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.backoff.Backoff;
import dev.backoff.Preset;
import dev.backoff.plan.Distribution;
import dev.backoff.plan.Schedule;
import dev.backoff.plan.ScheduleRow;
import dev.backoff.spec.BackoffSpec;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code backoff schedule}: the sleep before each retry and the elapsed time at it, for any strategy or
 * preset, exact or as a distribution.
 */
@Command(name = "schedule", mixinStandardHelpOptions = true,
    versionProvider = BackoffCommand.Version.class,
    description = {"Print the schedule of a backoff strategy or preset: for retry n, the sleep before it and "
        + "the elapsed time at it (the sum of the sleeps; attempt durations are ignored).",
        "Jittered strategies show the distribution (min, p5, median, mean, p95, max): exact where a closed "
        + "form exists, otherwise a seeded Monte-Carlo estimate (the method and sample count go to stderr)."})
final class ScheduleCommand implements Callable<Integer> {
  /** Output formats. */
  enum Format { table, csv, json }

  @Spec
  CommandSpec spec;

  @Mixin
  StrategyOptions strategy = new StrategyOptions();

  @Option(names = "--retries", paramLabel = "<count>",
      description = "Retries to show (>= 1). Default: a preset's own retries (its attempts - 1), else "
          + ScheduleCommand.DEFAULT_RETRIES + ".")
  Integer retries;

  static final int DEFAULT_RETRIES = 10;

  @Option(names = "--samples", paramLabel = "<count>", description = "Monte-Carlo samples for jittered strategies. Default " + Schedule.DEFAULT_SAMPLES + ".")
  Integer samples;

  @Option(names = "--seed", paramLabel = "<integer>", description = "Monte-Carlo seed. Default 0.")
  Long seed;

  @Option(names = "--format", paramLabel = "table|csv|json", defaultValue = "table",
      description = "table, csv or json. Default ${DEFAULT-VALUE}.")
  Format format;

  @Option(names = "--plot", paramLabel = "<file>", description = "Also draw delay and elapsed per retry, linear and log scales, to this .png or .svg file. Its directory must exist.")
  Path plot;

  @Override
  public Integer call() throws Exception {
    if (retries != null && retries < 1) {
      throw new Errors.UsageException("--retries must be at least 1, was " + retries);
    }
    if (samples != null && samples < 1) {
      throw new Errors.UsageException("--samples must be at least 1, was " + samples);
    }
    if (plot != null) {
      SchedulePlot.check(plot);
    }
    Backoff backoff = strategy.backoff();
    PrintWriter err = spec.commandLine().getErr();
    int shown = retries != null ? retries : presetRetries(err);
    Schedule schedule;
    try {
      schedule = Schedule.of(backoff, shown, samples != null ? samples : Schedule.DEFAULT_SAMPLES,
          seed != null ? seed : 0);
    } catch (IllegalArgumentException e) {
      // The planner names its parameters; the command line names its flags.
      String message = e.getMessage();
      throw new Errors.UsageException(message.startsWith("retries × samples")
          ? "--retries × --samples" + message.substring("retries × samples".length())
          : "--" + message);
    }
    err.println("backoff: " + strategy.name() + ": " + backoff + "; " + schedule.describeMethod());
    if (schedule.method() == Schedule.Method.EXACT && (samples != null || seed != null)) {
      err.println("backoff: note: the schedule is exact, --samples and --seed are unused");
    }
    PrintWriter out = spec.commandLine().getOut();
    boolean random = schedule.method() != Schedule.Method.EXACT;
    switch (format) {
      case csv -> printCsv(out, schedule, random);
      case json -> printJson(out, schedule, random);
      default -> printTable(out, schedule, random);
    }
    out.flush();
    if (plot != null) {
      SchedulePlot.write(schedule, strategy.name() + ": " + backoff, plot);
      err.println("backoff: plot written to " + plot);
    }
    err.flush();
    return 0;
  }

  /**
   * The retries to show when {@code --retries} is not given: a preset's own (it stops after its attempts),
   * saying so on stderr, else {@link #DEFAULT_RETRIES}.
   */
  private int presetRetries(PrintWriter err) {
    if (strategy.experiment() != null) {
      return DEFAULT_RETRIES;
    }
    BackoffSpec parsed = strategy.spec();
    if (!parsed.isPreset()) {
      return DEFAULT_RETRIES;
    }
    Preset preset = parsed.preset();
    int attempts = preset.maxAttempts();
    if (attempts <= 1 || attempts == Integer.MAX_VALUE) {
      return DEFAULT_RETRIES;
    }
    err.println("backoff: " + preset.id() + " stops after " + attempts + " attempts: showing its " + (attempts - 1)
        + " retries (--retries N shows more)");
    return attempts - 1;
  }

  private static void printTable(PrintWriter out, Schedule schedule, boolean random) {
    if (!random) {
      out.printf("%5s  %14s  %16s%n", "retry", "delay (s)", "elapsed (s)");
      for (ScheduleRow row : schedule.rows()) {
        out.printf("%5d  %14s  %16s%n", row.retry(), Numbers.table(row.delay().mean()),
            Numbers.table(row.elapsed().mean()));
      }
      return;
    }
    out.printf("%5s  %s  %s%n", "retry", header("delay (s)"), header("elapsed (s)"));
    out.printf("%5s  %s  %s%n", "", statistics(), statistics());
    for (ScheduleRow row : schedule.rows()) {
      out.printf("%5d  %s  %s%n", row.retry(), cells(row.delay()), cells(row.elapsed()));
    }
  }

  private static final String CELL = "%12s";

  private static String header(String title) {
    int width = 6 * 12 + 5;
    return String.format("%-" + width + "s", "── " + title + " " + "─".repeat(Math.max(0, width - title.length() - 4)));
  }

  private static String statistics() {
    return String.join(" ", String.format(CELL, "min"), String.format(CELL, "p5"), String.format(CELL, "median"),
        String.format(CELL, "mean"), String.format(CELL, "p95"), String.format(CELL, "max"));
  }

  private static String cells(Distribution d) {
    return String.join(" ", String.format(CELL, Numbers.table(d.min())), String.format(CELL, Numbers.table(d.p5())),
        String.format(CELL, Numbers.table(d.median())), String.format(CELL, Numbers.table(d.mean())),
        String.format(CELL, Numbers.table(d.p95())), String.format(CELL, Numbers.table(d.max())));
  }

  private static void printCsv(PrintWriter out, Schedule schedule, boolean random) {
    StringBuilder header = new StringBuilder("retry,delaySeconds,elapsedSeconds");
    if (random) {
      for (String prefix : new String[] {"delay", "elapsed"}) {
        for (String statistic : new String[] {"Min", "P5", "Median", "Mean", "P95", "Max"}) {
          header.append(',').append(prefix).append(statistic);
        }
      }
    }
    out.println(header);
    for (ScheduleRow row : schedule.rows()) {
      StringBuilder line = new StringBuilder();
      line.append(row.retry()).append(',').append(Numbers.seconds(row.delay().mean()).toPlainString()).append(',')
          .append(Numbers.seconds(row.elapsed().mean()).toPlainString());
      if (random) {
        for (Distribution d : new Distribution[] {row.delay(), row.elapsed()}) {
          for (double value : new double[] {d.min(), d.p5(), d.median(), d.mean(), d.p95(), d.max()}) {
            line.append(',').append(Numbers.seconds(value).toPlainString());
          }
        }
      }
      out.println(line);
    }
  }

  private static void printJson(PrintWriter out, Schedule schedule, boolean random) throws Exception {
    ObjectMapper mapper = Json.mapper();
    ObjectNode root = mapper.createObjectNode();
    ArrayNode rows = root.putArray("rows");
    for (ScheduleRow row : schedule.rows()) {
      ObjectNode node = rows.addObject();
      node.put("retry", row.retry());
      node.put("delaySeconds", Numbers.seconds(row.delay().mean()));
      node.put("elapsedSeconds", Numbers.seconds(row.elapsed().mean()));
      if (random) {
        distribution(node.putObject("delay"), row.delay());
        distribution(node.putObject("elapsed"), row.elapsed());
      }
    }
    out.println(mapper.writeValueAsString(root));
  }

  private static void distribution(ObjectNode node, Distribution d) {
    node.put("min", Numbers.seconds(d.min()));
    node.put("p5", Numbers.seconds(d.p5()));
    node.put("median", Numbers.seconds(d.median()));
    node.put("mean", Numbers.seconds(d.mean()));
    node.put("p95", Numbers.seconds(d.p95()));
    node.put("max", Numbers.seconds(d.max()));
  }

  /** The shared JSON settings: plain decimals, never exponent notation. */
  static final class Json {
    private Json() {}

    static ObjectMapper mapper() {
      ObjectMapper mapper = new ObjectMapper();
      mapper.enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);
      return mapper;
    }
  }
}
