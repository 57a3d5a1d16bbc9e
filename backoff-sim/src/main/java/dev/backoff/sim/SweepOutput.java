package dev.backoff.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * Writes a {@link Sweep}: a table of one metric, CSV and JSON of every metric, and an HTML page with a line
 * chart (one parameter) or a heatmap per policy (two parameters) of each metric. A point's value of a metric
 * is, over its seeds, the share of runs that recovered (with its Wilson interval) for {@link Metric#RECOVERED},
 * and the median (with its order-statistic interval) for the others; all intervals at 95%. Stateless; the
 * same sweep gives the same bytes on every JDK.
 */
public final class SweepOutput {
  private SweepOutput() {}

  /** A point's value of the metric over its seeds: the share recovered or the median, with its interval. */
  static Stats.Estimate value(Confidence.PolicyStats stats, Metric metric) {
    if (metric == Metric.RECOVERED) {
      Stats.Interval wilson = stats.recoveredInterval();
      return new Stats.Estimate(stats.recoveredShare(), wilson.lower(), wilson.upper());
    }
    return stats.sample(metric).median();
  }

  private static String what(Metric metric) {
    return metric == Metric.RECOVERED ? "share of runs that recovered" : "median " + metric.label();
  }

  /**
   * The table of one metric: with one parameter, a row per value and a column per policy (each cell the value
   * and its interval); with two, one block per policy, a row per value of the first parameter and a column
   * per value of the second (values only).
   */
  public static String table(Sweep sweep, Metric metric) {
    StringBuilder out = new StringBuilder();
    List<Sweep.Parameter> parameters = sweep.parameters();
    out.append(heading(sweep, metric)).append("\n\n");
    List<String> policies = sweep.scenario().policyNames();
    if (parameters.size() == 1) {
      List<String[]> rows = new ArrayList<>();
      List<String> header = new ArrayList<>(List.of(parameters.get(0).key()));
      header.addAll(policies);
      rows.add(header.toArray(new String[0]));
      for (Sweep.Point point : sweep.points()) {
        List<String> row = new ArrayList<>(List.of(point.values().get(0)));
        for (Confidence.PolicyStats stats : point.policies()) {
          row.add(cell(stats, metric, true));
        }
        rows.add(row.toArray(new String[0]));
      }
      ConfidenceOutput.appendTable(out, rows);
      return out.toString();
    }
    Sweep.Parameter first = parameters.get(0);
    Sweep.Parameter second = parameters.get(1);
    for (int p = 0; p < policies.size(); p++) {
      out.append(p == 0 ? "" : "\n").append(policies.get(p)).append(" (rows: ").append(first.key())
          .append(", columns: ").append(second.key()).append(")\n");
      List<String[]> rows = new ArrayList<>();
      List<String> header = new ArrayList<>(List.of(first.key() + " \\ " + second.key()));
      header.addAll(second.values());
      rows.add(header.toArray(new String[0]));
      for (int i = 0; i < first.values().size(); i++) {
        List<String> row = new ArrayList<>(List.of(first.values().get(i)));
        for (int j = 0; j < second.values().size(); j++) {
          row.add(cell(sweep.points().get(i * second.values().size() + j).policies().get(p), metric, false));
        }
        rows.add(row.toArray(new String[0]));
      }
      ConfidenceOutput.appendTable(out, rows);
    }
    return out.toString();
  }

  private static String heading(Sweep sweep, Metric metric) {
    StringBuilder text = new StringBuilder("sweep of ");
    for (int i = 0; i < sweep.parameters().size(); i++) {
      Sweep.Parameter parameter = sweep.parameters().get(i);
      text.append(i == 0 ? "" : " × ").append(parameter.key()).append(" (").append(parameter.values().size())
          .append(parameter.values().size() == 1 ? " value)" : " values)");
    }
    int policies = sweep.scenario().policyNames().size();
    text.append(", ").append(policies).append(policies == 1 ? " policy" : " policies").append(", ")
        .append(sweep.seeds()).append(sweep.seeds() == 1 ? " seed" : " seeds").append(" each (")
        .append(sweep.seeds() == 1 ? "seed " + sweep.scenario().seed : "seeds " + sweep.scenario().seed + ".."
            + (sweep.scenario().seed + sweep.seeds() - 1)).append("): ").append(Values.count((long) sweep.points().size() * policies
            * sweep.seeds(), "run", "runs")).append(".\n").append(capitalized(what(metric)))
        .append(metric == Metric.RECOVERED ? " (k/n" + (sweep.parameters().size() == 1 ? ", 95% Wilson interval)"
            : ")") : sweep.parameters().size() == 1 ? ", with its 95% interval" : "")
        .append(metric == Metric.RECOVERY_TIME ? ", over the runs that came back" : "").append('.');
    return text.toString();
  }

  private static String cell(Confidence.PolicyStats stats, Metric metric, boolean withInterval) {
    if (metric == Metric.RECOVERED) {
      String count = stats.recoveredCount() + "/" + stats.runs().size();
      Stats.Interval wilson = stats.recoveredInterval();
      return withInterval ? count + " " + ConfidenceOutput.interval(metric, wilson.lower(), wilson.upper()) : count;
    }
    Stats.Estimate median = stats.sample(metric).median();
    return withInterval ? ConfidenceOutput.estimate(metric, median) : metric.format(median.value());
  }

  /**
   * One row per point and policy, with a header line: the parameters' keys, then {@code policy,runs,recovered,
   * recoveredShare,recoveredLower,recoveredUpper}, then for each of {@code recoverySeconds}, {@code amplification},
   * {@code peakConcurrency}, {@code successRatio} and {@code p99SuccessLatencySeconds} its runs, median,
   * median's lower and upper end, and mean. An unbounded or missing value is an empty field; decimals: 6.
   */
  public static String csv(Sweep sweep) {
    StringBuilder out = new StringBuilder();
    for (Sweep.Parameter parameter : sweep.parameters()) {
      out.append(ConfidenceOutput.csvField(parameter.key())).append(',');
    }
    out.append("policy,runs,recovered,recoveredShare,recoveredLower,recoveredUpper");
    for (Metric metric : ConfidenceOutput.NUMBERS) {
      String name = metric.jsonName();
      out.append(',').append(name).append("Runs,").append(name).append("Median,").append(name).append("MedianLower,")
          .append(name).append("MedianUpper,").append(name).append("Mean");
    }
    out.append('\n');
    for (Sweep.Point point : sweep.points()) {
      for (Confidence.PolicyStats stats : point.policies()) {
        for (String value : point.values()) {
          out.append(ConfidenceOutput.csvField(value)).append(',');
        }
        Stats.Interval wilson = stats.recoveredInterval();
        out.append(ConfidenceOutput.csvField(stats.name())).append(',').append(stats.runs().size()).append(',')
            .append(stats.recoveredCount()).append(',').append(number(stats.recoveredShare())).append(',')
            .append(number(wilson.lower())).append(',').append(number(wilson.upper()));
        for (Metric metric : ConfidenceOutput.NUMBERS) {
          Stats.Sample sample = stats.sample(metric);
          Stats.Estimate median = sample.median();
          out.append(',').append(sample.size()).append(',').append(number(median.value())).append(',')
              .append(number(median.lower())).append(',').append(number(median.upper())).append(',')
              .append(number(sample.mean().value()));
        }
        out.append('\n');
      }
    }
    return out.toString();
  }

  private static String number(double value) {
    return Double.isFinite(value) ? Values.format(value, 6) : "";
  }

  /**
   * {@code {"parameters":[{"key":…,"values":[…]}],"seeds":{"first":…,"last":…,"count":…},"points":[{"values":[…],
   * "policies":[{"name":…,"runs":…,"recovered":{"count":…,"share":…,"lower":…,"upper":…},"metrics":{
   * "amplification":{"runs":…,"median":{"value":…,"lower":…,"upper":…},"mean":…},…}}]}]}}; an unbounded or
   * missing number is null.
   */
  public static String json(Sweep sweep) {
    Json json = Json.lines().object().field("parameters").array();
    for (Sweep.Parameter parameter : sweep.parameters()) {
      json.object().field("key").string(parameter.key()).field("values").array();
      for (String value : parameter.values()) {
        json.string(value);
      }
      json.endArray().endObject();
    }
    json.endArray().field("seeds").object().field("first").number(sweep.scenario().seed).field("last")
        .number(sweep.scenario().seed + sweep.seeds() - 1).field("count").number(sweep.seeds()).endObject()
        .field("points").array();
    for (Sweep.Point point : sweep.points()) {
      json.object().field("values").array();
      for (String value : point.values()) {
        json.string(value);
      }
      json.endArray().field("policies").array();
      for (Confidence.PolicyStats stats : point.policies()) {
        Stats.Interval wilson = stats.recoveredInterval();
        json.object().field("name").string(stats.name()).field("runs").number(stats.runs().size())
            .field("recovered").object().field("count").number(stats.recoveredCount())
            .field("share").decimal(stats.recoveredShare(), 6).field("lower").decimal(wilson.lower(), 6)
            .field("upper").decimal(wilson.upper(), 6).endObject().field("metrics").object();
        for (Metric metric : ConfidenceOutput.NUMBERS) {
          Stats.Sample sample = stats.sample(metric);
          Stats.Estimate median = sample.median();
          json.field(metric.jsonName()).object().field("runs").number(sample.size()).field("median").object()
              .field("value").decimal(median.value(), 6).field("lower").decimal(median.lower(), 6)
              .field("upper").decimal(median.upper(), 6).endObject().field("mean").decimal(sample.mean().value(), 6)
              .endObject();
        }
        json.endObject().endObject();
      }
      json.endArray().endObject();
    }
    return json.endArray().endObject() + "\n";
  }

  /**
   * A self-contained HTML page: the chosen metric first, then the others; with one parameter a line chart per
   * metric (a line per policy, the interval as whiskers where both ends are bounded), with two a heatmap per
   * policy and metric; inline SVG, no script.
   */
  public static String html(Sweep sweep, Metric chosen) {
    List<Metric> order = new ArrayList<>(List.of(chosen));
    for (Metric metric : Metric.values()) {
      if (metric != chosen) {
        order.add(metric);
      }
    }
    StringBuilder body = new StringBuilder("<pre>").append(Svg.escape(table(sweep, chosen))).append("</pre>\n");
    List<Sweep.Parameter> parameters = sweep.parameters();
    List<String> policies = sweep.scenario().policyNames();
    for (Metric metric : order) {
      body.append("<h2>").append(Svg.escape(capitalized(what(metric)))).append("</h2>\n");
      if (parameters.size() == 1) {
        Sweep.Parameter parameter = parameters.get(0);
        int n = sweep.points().size();
        double[] xs = parameter.positions();
        String[] texts = parameter.values().toArray(new String[0]);
        List<Svg.Line> lines = new ArrayList<>();
        for (int p = 0; p < policies.size(); p++) {
          double[] ys = new double[n];
          double[] lows = new double[n];
          double[] highs = new double[n];
          for (int i = 0; i < n; i++) {
            Stats.Estimate e = value(sweep.points().get(i).policies().get(p), metric);
            ys[i] = e.value();
            lows[i] = e.lower();
            highs[i] = e.upper();
          }
          lines.add(new Svg.Line(policies.get(p), Svg.COLORS[p % Svg.COLORS.length], ys, lows, highs));
        }
        body.append(Svg.lines(capitalized(what(metric)) + " against " + parameter.key(), parameter.key(), xs, texts,
            metric, lines));
      } else {
        Sweep.Parameter first = parameters.get(0);
        Sweep.Parameter second = parameters.get(1);
        for (int p = 0; p < policies.size(); p++) {
          double[][] values = new double[first.values().size()][second.values().size()];
          for (int i = 0; i < values.length; i++) {
            for (int j = 0; j < values[i].length; j++) {
              values[i][j] = value(sweep.points().get(i * second.values().size() + j).policies().get(p), metric).value();
            }
          }
          body.append(Svg.heatmap(policies.get(p) + ": " + what(metric), second.key(),
              second.values().toArray(new String[0]), first.key(), first.values().toArray(new String[0]), values,
              metric, metric == Metric.RECOVERED || metric == Metric.SUCCESS_RATIO));
        }
      }
    }
    String intro = "<p>Scenario: " + Svg.escape(ConfidenceOutput.describe(sweep.scenario())) + ". Each point's "
        + "value is, over its seeds, the share of runs that recovered (with its 95% Wilson interval) or the median "
        + "(with its 95% order-statistic interval).</p>";
    return Svg.page("Retry-storm sweep", intro, body.toString());
  }

  private static String capitalized(String text) {
    return Character.toUpperCase(text.charAt(0)) + text.substring(1);
  }
}
