package dev.backoff.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Writes a {@link Confidence} result: a compact table, CSV (one row per run, or one per policy and metric),
 * JSON, and a self-contained HTML page whose charts show the distributions over seeds. Every interval is at
 * 95%; an end the data cannot bound prints as {@code ∞} ({@code -∞}) in the table, {@code null} in JSON and an
 * empty field in CSV. Numbers are formatted without {@code Double.toString}, so the same seeds give the same
 * bytes on every JDK. Stateless.
 */
public final class ConfidenceOutput {
  private ConfidenceOutput() {}

  /** The metrics shown for each policy, after the share recovered. */
  static final List<Metric> NUMBERS = List.of(Metric.RECOVERY_TIME, Metric.AMPLIFICATION, Metric.PEAK_CONCURRENCY,
      Metric.SUCCESS_RATIO, Metric.P99);

  /**
   * The compact table: a heading line with the seeds, then one row per policy with the runs that recovered
   * ({@code k/n}, the share and its Wilson interval) and each metric's median with its interval; a blank
   * line, then one row per policy and metric with the count, mean, median and p90 (each with its interval),
   * min and max.
   */
  public static String table(Confidence result) {
    StringBuilder out = new StringBuilder();
    out.append(heading(result)).append("\n\n");
    List<String[]> rows = new ArrayList<>();
    List<String> header = new ArrayList<>(List.of("policy", "recovered", "95% interval"));
    for (Metric metric : NUMBERS) {
      header.add(metric.column);
    }
    rows.add(header.toArray(new String[0]));
    for (Confidence.PolicyStats p : result.policies()) {
      Stats.Interval wilson = p.recoveredInterval();
      List<String> row = new ArrayList<>(List.of(p.name(), p.recoveredCount() + "/" + p.runs().size(),
          interval(Metric.RECOVERED, wilson.lower(), wilson.upper())));
      for (Metric metric : NUMBERS) {
        row.add(estimate(metric, p.sample(metric).median()));
      }
      rows.add(row.toArray(new String[0]));
    }
    appendTable(out, rows);
    out.append('\n');
    rows.clear();
    rows.add(new String[] {"policy", "metric", "runs", "mean", "median", "p90", "min", "max"});
    for (Confidence.PolicyStats p : result.policies()) {
      for (Metric metric : NUMBERS) {
        Stats.Sample sample = p.sample(metric);
        rows.add(new String[] {p.name(), metric.label(), Integer.toString(sample.size()),
            estimate(metric, sample.mean()), estimate(metric, sample.median()), estimate(metric, sample.p90()),
            metric.format(sample.min()), metric.format(sample.max())});
      }
    }
    appendTable(out, rows);
    if (showsProtection(result)) {
      out.append('\n').append(protectionTable(result));
    }
    out.append('\n').append(verdictLines(result));
    return out.toString();
  }

  /**
   * Whether the table shows the storm-protection block: when the runs carry their protection numbers and
   * the server has a capacity (a pool) or a policy has an adaptive rate limiter, a concurrency limiter, a
   * breaker or hedging.
   */
  static boolean showsProtection(Confidence result) {
    if (result.policies().get(0).protection().isEmpty()) {
      return false;
    }
    Scenario scenario = result.scenario();
    boolean shows = scenario.serverModel == Scenario.ServerModel.POOL;
    for (PolicySpec spec : scenario.policies) {
      shows |= spec.adaptive != null || spec.concurrency != null || spec.breaker != null || spec.hedge != null;
    }
    return shows;
  }

  /** The index of the first policy with plain retries (no budget, no storm protection), or -1. */
  static int plainPolicy(Scenario scenario) {
    for (int i = 0; i < scenario.policies.size(); i++) {
      PolicySpec spec = scenario.policies.get(i);
      if (!spec.withBudget && spec.adaptive == null && spec.concurrency == null && spec.breaker == null
          && spec.hedge == null) {
        return i;
      }
    }
    return -1;
  }

  /** What the server's error answers are: {@code 429s} or {@code 503s} for a pool without crashes, else {@code errors}. */
  static String errorsName(Scenario scenario) {
    if (scenario.serverModel != Scenario.ServerModel.POOL) {
      return "errors";
    }
    for (Fault fault : scenario.faults) {
      if (fault.type == Fault.Type.CRASH) {
        return "errors";
      }
    }
    return scenario.rejectStatus + "s";
  }

  private static String protectionTable(Confidence result) {
    Scenario scenario = result.scenario();
    ProtectionSummary window = result.policies().get(0).protection().get(0);
    boolean capacity = !Double.isNaN(window.capacity());
    boolean shedding = false;
    for (PolicySpec spec : scenario.policies) {
      shedding |= spec.concurrency != null;
    }
    String errors = errorsName(scenario);
    int plain = plainPolicy(scenario);
    double plainErrors = plain < 0 ? Double.NaN
        : result.policies().get(plain).sample(WindowMetric.ERRORS).mean().value();
    boolean relative = plainErrors > 0;
    String plainName = relative ? result.policies().get(plain).name() : "";
    StringBuilder out = new StringBuilder();
    if (window.windowStart() < 0) {
      out.append("Storm protection: this scenario has no disturbance, so no window to measure goodput in.\n");
    } else {
      out.append("Storm protection in the disturbance's second half, seconds ").append(window.windowStart())
          .append(" to ").append(window.windowEnd()).append(capacity
              ? ", where the pool serves " + WindowMetric.GOODPUT.format(window.capacity()) + " req/s" : "")
          .append(";\nmeans over the seeds with their 95% intervals (medians for back), worst = the worst seed's.\n");
    }
    out.append(capacity ? "goodput/capacity: successes per second, of that capacity; " : "goodput/s: successes per "
            + "second; ")
        .append("goodput/started: of the logical requests started in the window;\n")
        .append("after/baseline: goodput from the disturbance's end to the run's end, of the baseline")
        .append(relative ? "; " + errors + "/" + plainName + "'s: the mean " + errors + "/s of " + plainName + "'s"
            : "").append(";\n")
        .append(shedding ? "shed: the concurrency limiter's refusals over the run, first attempts of the requests "
            + "started, retries and hedges of the retries scheduled;\n" : "")
        .append("back: seconds from the disturbance's end until goodput stays at ")
        .append(Values.format(100 * ProtectionSummary.BACK_SHARE, 0)).append("% of the baseline or more for ")
        .append(ProtectionSummary.BACK_SECONDS).append(" s,\nand counted from the last second with ")
        .append(errors.equals("errors") ? "an error" : "a " + errors.substring(0, errors.length() - 1))
        .append(" before that (over the seeds with one).\n\n");
    List<String> header = new ArrayList<>(List.of("policy"));
    header.addAll(capacity ? List.of("goodput/capacity", "worst") : List.of("goodput/s"));
    header.addAll(List.of("goodput/started", "worst", "after/baseline", "worst", errors + "/s"));
    if (relative) {
      header.add(errors + "/" + plainName + "'s");
    }
    if (shedding) {
      header.addAll(List.of("first shed", "retries shed"));
    }
    header.addAll(List.of("back", "worst", "from last " + (errors.equals("errors") ? "error" : errors.substring(0,
        errors.length() - 1)), "worst"));
    List<String[]> rows = new ArrayList<>();
    rows.add(header.toArray(new String[0]));
    for (Confidence.PolicyStats p : result.policies()) {
      List<String> row = new ArrayList<>(List.of(p.name()));
      if (capacity) {
        row.add(windowMean(p, WindowMetric.GOODPUT_OF_CAPACITY));
        row.add(worst(p, WindowMetric.GOODPUT_OF_CAPACITY));
      } else {
        row.add(windowMean(p, WindowMetric.GOODPUT));
      }
      row.add(WindowMetric.GOODPUT_OF_STARTED.format(p.sample(WindowMetric.GOODPUT_OF_STARTED).mean().value()));
      row.add(worst(p, WindowMetric.GOODPUT_OF_STARTED));
      row.add(WindowMetric.AFTER_OF_BASELINE.format(p.sample(WindowMetric.AFTER_OF_BASELINE).mean().value()));
      row.add(worst(p, WindowMetric.AFTER_OF_BASELINE));
      double mean = p.sample(WindowMetric.ERRORS).mean().value();
      row.add(WindowMetric.ERRORS.format(mean));
      if (relative) {
        row.add(WindowMetric.GOODPUT_OF_CAPACITY.format(mean / plainErrors));
      }
      if (shedding) {
        row.add(windowMean(p, WindowMetric.FIRST_SHED));
        row.add(windowMean(p, WindowMetric.RETRIES_SHED));
      }
      for (WindowMetric metric : new WindowMetric[] {WindowMetric.BACK, WindowMetric.BACK_FROM_LAST_ERROR}) {
        Stats.Sample sample = p.sample(metric);
        row.add(metric == WindowMetric.BACK && sample.missing() > 0 ? sample.missing() + " never"
            : windowEstimate(metric, sample.median()));
        row.add(worst(p, metric));
      }
      rows.add(row.toArray(new String[0]));
    }
    appendTable(out, rows);
    return out.toString();
  }

  private static String windowMean(Confidence.PolicyStats p, WindowMetric metric) {
    return windowEstimate(metric, p.sample(metric).mean());
  }

  private static String windowEstimate(WindowMetric metric, Stats.Estimate estimate) {
    if (Double.isNaN(estimate.value())) {
      return "-";
    }
    return metric.format(estimate.value()) + (Double.isNaN(estimate.lower()) ? ""
        : " [" + metric.format(estimate.lower()) + ", " + metric.format(estimate.upper()) + "]");
  }

  /** The worst seed's value: the lowest for goodput, the highest for errors and times; {@code -} without any. */
  private static String worst(Confidence.PolicyStats p, WindowMetric metric) {
    Stats.Sample sample = p.sample(metric);
    if (metric == WindowMetric.BACK && sample.missing() > 0) {
      return "never";
    }
    if (sample.size() == 0) {
      return "-";
    }
    return metric.format(metric.lowerIsWorse() ? sample.min() : sample.max());
  }

  private static String heading(Confidence result) {
    return result.policies().size() + (result.policies().size() == 1 ? " policy" : " policies") + " over "
        + result.seeds() + (result.seeds() == 1 ? " seed" : " seeds") + " (" + seedRange(result) + "); 95% intervals: "
        + "recovered by Wilson's score, means by Student's t, medians and p90 by order statistics.\n"
        + "Medians first; recovery time over the runs that came back.";
  }

  private static String seedRange(Confidence result) {
    return result.seeds() == 1 ? "seed " + result.firstSeed()
        : "seeds " + result.firstSeed() + ".." + result.lastSeed();
  }

  private static String verdictLines(Confidence result) {
    StringBuilder out = new StringBuilder("verdicts:\n");
    int width = 0;
    for (Confidence.PolicyStats p : result.policies()) {
      width = Math.max(width, p.name().length());
    }
    for (Confidence.PolicyStats p : result.policies()) {
      out.append("  ").append(p.name()).append(" ".repeat(width - p.name().length())).append("  ");
      boolean first = true;
      for (Map.Entry<RecoveryVerdict, Integer> entry : p.verdicts().entrySet()) {
        out.append(first ? "" : ", ").append(entry.getValue()).append(' ').append(entry.getKey().label());
        first = false;
      }
      out.append('\n');
    }
    out.append("\nwhy, run by run:\n");
    int seedWidth = Long.toString(result.lastSeed()).length();
    for (Confidence.PolicyStats p : result.policies()) {
      out.append("  ").append(p.name()).append('\n');
      int labelWidth = 0;
      for (Summary run : p.runs()) {
        labelWidth = Math.max(labelWidth, run.verdict().label().length());
      }
      for (int i = 0; i < p.runs().size(); i++) {
        Summary run = p.runs().get(i);
        String seed = Long.toString(result.firstSeed() + i);
        out.append("    seed ").append(" ".repeat(seedWidth - seed.length())).append(seed).append("  ")
            .append(run.verdict().label()).append(" ".repeat(labelWidth - run.verdict().label().length()))
            .append("  ").append(run.reason()).append('\n');
      }
    }
    return out.toString();
  }

  /** {@code value [lower, upper]} in the metric's unit, {@code -} without data. */
  static String estimate(Metric metric, Stats.Estimate estimate) {
    if (Double.isNaN(estimate.value())) {
      return "-";
    }
    return metric.format(estimate.value()) + " " + interval(metric, estimate.lower(), estimate.upper());
  }

  static String interval(Metric metric, double lower, double upper) {
    return Double.isNaN(lower) ? "-" : "[" + metric.format(lower) + ", " + metric.format(upper) + "]";
  }

  /** A text table: the first row is the header, underlined; the first column left-aligned, the others right. */
  static void appendTable(StringBuilder out, List<String[]> rows) {
    int columns = rows.get(0).length;
    int[] widths = new int[columns];
    for (String[] row : rows) {
      for (int c = 0; c < columns; c++) {
        widths[c] = Math.max(widths[c], row[c].length());
      }
    }
    for (int r = 0; r < rows.size(); r++) {
      appendRow(out, rows.get(r), widths);
      if (r == 0) {
        String[] rule = new String[columns];
        for (int c = 0; c < columns; c++) {
          rule[c] = "-".repeat(widths[c]);
        }
        appendRow(out, rule, widths);
      }
    }
  }

  private static void appendRow(StringBuilder out, String[] cells, int[] widths) {
    StringBuilder line = new StringBuilder();
    for (int c = 0; c < cells.length; c++) {
      if (c > 0) {
        line.append("  ");
      }
      String cell = cells[c];
      if (c == 0) {
        line.append(cell).append(" ".repeat(widths[c] - cell.length()));
      } else {
        line.append(" ".repeat(widths[c] - cell.length())).append(cell);
      }
    }
    out.append(line.toString().stripTrailing()).append('\n');
  }

  /**
   * One row per run, with a header line: {@code policy,seed,verdict,recovered,recoverySeconds,peakConcurrency,
   * amplification,successRatio,p99SuccessLatencySeconds,baselineGoodput,goodputAfterFault,logicalRequests,
   * attempts,verdictReason}, decimals as in the single run's summary CSV; a number a run does not have is
   * empty; {@code verdictReason} is the sentence the verdict follows from, as in the single run's CSV.
   */
  public static String csv(Confidence result) {
    boolean protection = !result.policies().get(0).protection().isEmpty();
    StringBuilder out = new StringBuilder("policy,seed,verdict,recovered,recoverySeconds,peakConcurrency,"
        + "amplification,successRatio,p99SuccessLatencySeconds,baselineGoodput,goodputAfterFault,logicalRequests,"
        + "attempts," + (protection ? PROTECTION_COLUMNS + "," : "") + "verdictReason\n");
    for (Confidence.PolicyStats p : result.policies()) {
      String name = csvField(p.name());
      List<Summary> runs = p.runs();
      for (int i = 0; i < runs.size(); i++) {
        Summary s = runs.get(i);
        out.append(name).append(',').append(result.firstSeed() + i).append(',').append(s.verdict().id()).append(',')
            .append(s.recovered()).append(',')
            .append(s.recoverySeconds() == null ? "" : s.recoverySeconds().toString()).append(',')
            .append(s.peakConcurrency()).append(',').append(csvNumber(s.amplification(), 4)).append(',')
            .append(csvNumber(s.successRatio(), 4)).append(',').append(csvNumber(s.p99SuccessLatencySeconds(), 6))
            .append(',').append(csvNumber(s.baselineGoodput(), 3)).append(',')
            .append(csvNumber(s.goodputAfterFault(), 3)).append(',').append(s.logicalRequests()).append(',')
            .append(s.attempts()).append(',');
        if (protection) {
          appendProtection(out, p.protection().get(i));
        }
        out.append(csvField(s.reason())).append('\n');
      }
    }
    return out.toString();
  }

  /** The per-run CSV's storm-protection columns ({@link ProtectionSummary}). */
  static final String PROTECTION_COLUMNS = "windowStart,windowEnd,windowGoodput,windowCapacity,windowStarted,"
      + "windowErrors,backSeconds,backFromLastErrorSeconds,retriesScheduled,concurrencyRefusedFirst,"
      + "concurrencyRefusedRetries";

  private static void appendProtection(StringBuilder out, ProtectionSummary p) {
    out.append(p.windowStart() < 0 ? "" : Integer.toString(p.windowStart())).append(',')
        .append(p.windowEnd() < 0 ? "" : Integer.toString(p.windowEnd())).append(',')
        .append(csvNumber(p.goodput(), 3)).append(',').append(csvNumber(p.capacity(), 3)).append(',')
        .append(csvNumber(p.started(), 3)).append(',').append(csvNumber(p.errors(), 3)).append(',')
        .append(csvNumber(p.backSeconds(), 0)).append(',').append(csvNumber(p.backFromLastError(), 0)).append(',')
        .append(p.retries()).append(',').append(p.refusedFirst() < 0 ? "" : Long.toString(p.refusedFirst()))
        .append(',').append(p.refusedRetries() < 0 ? "" : Long.toString(p.refusedRetries())).append(',');
  }

  /**
   * The statistics, one row per policy and metric, with a header line: {@code policy,metric,runs,missing,mean,
   * meanLower,meanUpper,median,medianLower,medianUpper,p90,p90Lower,p90Upper,min,max}. The {@code recovered}
   * row has the share recovered as its mean and the Wilson interval as the mean's bounds (its quantile columns
   * are empty). An unbounded or missing value is an empty field; decimals: 6.
   */
  public static String summaryCsv(Confidence result) {
    StringBuilder out = new StringBuilder("policy,metric,runs,missing,mean,meanLower,meanUpper,median,medianLower,"
        + "medianUpper,p90,p90Lower,p90Upper,min,max\n");
    for (Confidence.PolicyStats p : result.policies()) {
      String name = csvField(p.name());
      Stats.Interval wilson = p.recoveredInterval();
      out.append(name).append(",recovered,").append(p.runs().size()).append(",0,")
          .append(csvNumber(p.recoveredShare(), 6)).append(',').append(csvNumber(wilson.lower(), 6)).append(',')
          .append(csvNumber(wilson.upper(), 6)).append(",,,,,,,,\n");
      for (Metric metric : NUMBERS) {
        appendSampleRow(out, name, metric.id(), p.sample(metric));
      }
      if (!p.protection().isEmpty()) {
        for (WindowMetric metric : WindowMetric.values()) {
          appendSampleRow(out, name, metric.id, p.sample(metric));
        }
      }
    }
    return out.toString();
  }

  private static void appendSampleRow(StringBuilder out, String name, String metric, Stats.Sample sample) {
    out.append(name).append(',').append(metric).append(',').append(sample.size()).append(',')
        .append(sample.missing());
    for (Stats.Estimate e : new Stats.Estimate[] {sample.mean(), sample.median(), sample.p90()}) {
      out.append(',').append(csvNumber(e.value(), 6)).append(',').append(csvNumber(e.lower(), 6)).append(',')
          .append(csvNumber(e.upper(), 6));
    }
    out.append(',').append(csvNumber(sample.min(), 6)).append(',').append(csvNumber(sample.max(), 6))
        .append('\n');
  }

  /**
   * {@code {"seeds":{"first":…,"last":…,"count":…},"confidence":0.95,"policies":[{"name":…,"runs":…,
   * "recovered":{"count":…,"share":…,"lower":…,"upper":…},"verdicts":{"recovered":…,…},"perSeed":[{"seed":…,
   * "verdict":…,"verdictReason":…},…],"metrics":{
   * "recoverySeconds":{"runs":…,"missing":…,"mean":{"value":…,"lower":…,"upper":…},"median":{…},"p90":{…},
   * "min":…,"max":…,"values":[…]},…}}]}}: the metrics under their single-run summary names
   * ({@code recoverySeconds}, {@code amplification}, {@code peakConcurrency}, {@code successRatio},
   * {@code p99SuccessLatencySeconds}); {@code values} holds each seed's value in seed order, null where a run
   * has none; an unbounded interval end is null.
   */
  public static String json(Confidence result) {
    Json json = Json.lines().object().field("seeds").object().field("first").number(result.firstSeed())
        .field("last").number(result.lastSeed()).field("count").number(result.seeds()).endObject()
        .field("confidence").numberText("0.95").field("policies").array();
    for (Confidence.PolicyStats p : result.policies()) {
      Stats.Interval wilson = p.recoveredInterval();
      json.object().field("name").string(p.name()).field("runs").number(p.runs().size())
          .field("recovered").object().field("count").number(p.recoveredCount())
          .field("share").decimal(p.recoveredShare(), 6).field("lower").decimal(wilson.lower(), 6)
          .field("upper").decimal(wilson.upper(), 6).endObject()
          .field("verdicts").object();
      for (Map.Entry<RecoveryVerdict, Integer> entry : p.verdicts().entrySet()) {
        json.field(entry.getKey().id()).number(entry.getValue());
      }
      json.endObject().field("perSeed").array();
      for (int i = 0; i < p.runs().size(); i++) {
        Summary run = p.runs().get(i);
        json.object().field("seed").number(result.firstSeed() + i).field("verdict").string(run.verdict().id())
            .field("verdictReason").string(run.reason()).endObject();
      }
      json.endArray().field("metrics").object();
      for (Metric metric : NUMBERS) {
        sampleJson(json, metric.jsonName(), p.sample(metric), p.values(metric));
      }
      json.endObject();
      if (!p.protection().isEmpty()) {
        ProtectionSummary window = p.protection().get(0);
        json.field("protection").object().field("window").object()
            .field("start").number(window.windowStart() < 0 ? null : window.windowStart())
            .field("end").number(window.windowEnd() < 0 ? null : window.windowEnd())
            .field("capacity").decimal(window.capacity(), 6).endObject();
        for (WindowMetric metric : WindowMetric.values()) {
          sampleJson(json, metric.jsonName, p.sample(metric), p.values(metric));
        }
        json.endObject();
      }
      json.endObject();
    }
    return json.endArray().endObject() + "\n";
  }

  private static void sampleJson(Json json, String name, Stats.Sample sample, double[] values) {
    json.field(name).object().field("runs").number(sample.size()).field("missing").number(sample.missing());
    estimateJson(json.field("mean"), sample.mean());
    estimateJson(json.field("median"), sample.median());
    estimateJson(json.field("p90"), sample.p90());
    json.field("min").decimal(sample.min(), 6).field("max").decimal(sample.max(), 6).field("values").array();
    for (double value : values) {
      json.decimal(value, 6);
    }
    json.endArray().endObject();
  }

  private static void estimateJson(Json json, Stats.Estimate e) {
    json.object().field("value").decimal(e.value(), 6).field("lower").decimal(e.lower(), 6)
        .field("upper").decimal(e.upper(), 6).endObject();
  }

  /**
   * A self-contained HTML page: the scenario, the statistics table, a chart of the share of runs that
   * recovered with its Wilson interval, and a strip plot per metric (each run a dot, the median with its
   * interval, the mean), all inline SVG with no script.
   */
  public static String html(Confidence result) {
    StringBuilder body = new StringBuilder();
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"policy", "recovered", "95% interval", "metric", "runs", "mean [95%]", "median [95%]",
        "p90 [95%]", "min", "max"});
    for (Confidence.PolicyStats p : result.policies()) {
      Stats.Interval wilson = p.recoveredInterval();
      for (Metric metric : NUMBERS) {
        Stats.Sample sample = p.sample(metric);
        boolean first = metric == NUMBERS.get(0);
        rows.add(new String[] {first ? p.name() : "", first ? p.recoveredCount() + "/" + p.runs().size() : "",
            first ? interval(Metric.RECOVERED, wilson.lower(), wilson.upper()) : "", metric.label(),
            Integer.toString(sample.size()), estimate(metric, sample.mean()), estimate(metric, sample.median()),
            estimate(metric, sample.p90()), metric.format(sample.min()), metric.format(sample.max())});
      }
    }
    body.append(Svg.table(rows));
    List<String> names = new ArrayList<>();
    double[] shares = new double[result.policies().size()];
    Stats.Interval[] intervals = new Stats.Interval[shares.length];
    for (int i = 0; i < shares.length; i++) {
      Confidence.PolicyStats p = result.policies().get(i);
      names.add(p.name());
      shares[i] = p.recoveredShare();
      intervals[i] = p.recoveredInterval();
    }
    body.append("<div class=\"charts\">\n");
    body.append(Svg.shares("Runs that recovered", names, shares, intervals));
    for (Metric metric : NUMBERS) {
      List<Svg.Strip> strips = new ArrayList<>();
      for (int i = 0; i < shares.length; i++) {
        Confidence.PolicyStats p = result.policies().get(i);
        strips.add(new Svg.Strip(p.name(), Svg.COLORS[i % Svg.COLORS.length], p.values(metric), p.sample(metric)));
      }
      body.append(Svg.strips(capitalized(metric.label()) + (metric == Metric.RECOVERY_TIME
          ? " (runs that came back)" : ""), metric, strips));
    }
    body.append("</div>\n");
    String intro = "<p>" + Svg.escape(heading(result)).replace("\n", " ") + "</p>\n<p>Scenario: "
        + Svg.escape(describe(result.scenario())) + "</p>";
    return Svg.page("Retry-storm simulation over seeds", intro, body.toString());
  }

  /** The scenario's explicit keys (the rest are defaults), for a page's introduction. */
  static String describe(Scenario scenario) {
    StringBuilder text = new StringBuilder();
    for (Map.Entry<String, Object> entry : scenario.explicitValues().entrySet()) {
      if (entry.getKey().equals("seed") || entry.getKey().equals("policies")) {
        continue;
      }
      text.append(text.length() == 0 ? "" : ", ").append(entry.getKey()).append(' ')
          .append(scenario.value(entry.getKey()));
    }
    return text.length() == 0 ? "the defaults (the retry-storm experiment)" : text + "; the rest at the defaults";
  }

  private static String capitalized(String text) {
    return Character.toUpperCase(text.charAt(0)) + text.substring(1);
  }

  private static String csvNumber(double value, int decimals) {
    return Double.isFinite(value) ? Values.format(value, decimals) : "";
  }

  static String csvField(String value) {
    if (value.contains(",") || value.contains("\"")) {
      return '"' + value.replace("\"", "\"\"") + '"';
    }
    return value;
  }
}
