package dev.backoff.sim;

import java.util.List;

/**
 * Writes results as text: the retry-storm experiment's table, CSV, and JSON in the shape the command line documents. Numbers
 * are formatted without {@code Double.toString}, so every JDK writes the same bytes. Stateless.
 */
public final class Output {
  private Output() {}

  /**
   * The retry-storm experiment's client lines every 5 seconds ({@code OK: x req/sec, errors: y req/sec, timedout: z req/sec})
   * with the server's concurrency and latency, per policy, then a summary table.
   */
  public static String table(SimulationResult result) {
    StringBuilder out = new StringBuilder();
    for (PolicyResult policy : result.policies()) {
      out.append("== ").append(policy.name()).append(" ==\n");
      List<Second> series = policy.series();
      for (int end = 5; end <= series.size(); end += 5) {
        double ok = 0;
        double errors = 0;
        double timeouts = 0;
        for (int t = end - 5; t < end; t++) {
          ok += series.get(t).goodput();
          errors += series.get(t).errors();
          timeouts += series.get(t).timeouts();
        }
        Second last = series.get(end - 1);
        out.append(String.format(java.util.Locale.ROOT, "%4ds  ", end))
            .append("OK: ").append(Values.format(ok / 5, 2)).append(" req/sec, errors: ")
            .append(Values.format(errors / 5, 2)).append(" req/sec, timedout: ")
            .append(Values.format(timeouts / 5, 2)).append(" req/sec | concurrency: ")
            .append(last.concurrency()).append(", latency: ")
            .append(Values.human((long) (last.latencySeconds() * 1e9))).append('\n');
      }
      out.append('\n');
    }
    out.append(summaryTable(result));
    return out.toString();
  }

  /** The summary table alone. */
  public static String summaryTable(SimulationResult result) {
    String[] header = {"policy", "baseline/s", "after/s", "recovered", "recovery", "peak conc.", "amplification",
        "success", "p99 latency"};
    List<PolicyResult> policies = result.policies();
    String[][] rows = new String[policies.size()][];
    for (int i = 0; i < rows.length; i++) {
      PolicyResult p = policies.get(i);
      Summary s = p.summary();
      rows[i] = new String[] {p.name(), Values.format(s.baselineGoodput(), 1), Values.format(s.goodputAfterFault(), 1),
          s.recovered() ? "yes" : "NO", s.recoverySeconds() == null ? "-" : s.recoverySeconds() + "s",
          Integer.toString(s.peakConcurrency()), Values.format(s.amplification(), 2),
          Values.format(100 * s.successRatio(), 1) + "%", Values.human((long) (s.p99LatencySeconds() * 1e9))};
    }
    int[] widths = new int[header.length];
    for (int c = 0; c < header.length; c++) {
      widths[c] = header[c].length();
      for (String[] row : rows) {
        widths[c] = Math.max(widths[c], row[c].length());
      }
    }
    StringBuilder out = new StringBuilder();
    appendRow(out, header, widths);
    StringBuilder rule = new StringBuilder();
    for (int c = 0; c < widths.length; c++) {
      rule.append(c == 0 ? "" : "  ").append("-".repeat(widths[c]));
    }
    out.append(rule).append('\n');
    for (String[] row : rows) {
      appendRow(out, row, widths);
    }
    return out.toString();
  }

  private static void appendRow(StringBuilder out, String[] cells, int[] widths) {
    for (int c = 0; c < cells.length; c++) {
      if (c > 0) {
        out.append("  ");
      }
      String cell = cells[c];
      if (c == 0) {
        out.append(cell).append(" ".repeat(widths[c] - cell.length()));
      } else {
        out.append(" ".repeat(widths[c] - cell.length())).append(cell);
      }
    }
    out.append('\n');
  }

  /** Every per-second value of every policy, one row per policy and second, with a header line. */
  public static String csv(SimulationResult result) {
    StringBuilder out = new StringBuilder("policy,t,newRequests,attempts,goodput,errors,timeouts,retries,gaveUp,"
        + "concurrency,peakConcurrency,latencySeconds,clientP50Seconds,clientP99Seconds,budgetLevel\n");
    for (PolicyResult policy : result.policies()) {
      String name = csvField(policy.name());
      for (Second s : policy.series()) {
        out.append(name).append(',').append(s.t()).append(',').append(s.newRequests()).append(',')
            .append(s.attempts()).append(',').append(s.goodput()).append(',').append(s.errors()).append(',')
            .append(s.timeouts()).append(',').append(s.retries()).append(',').append(s.gaveUp()).append(',')
            .append(s.concurrency()).append(',').append(s.peakConcurrency()).append(',')
            .append(Values.format(s.latencySeconds(), 6)).append(',').append(Values.format(s.clientP50Seconds(), 6))
            .append(',').append(Values.format(s.clientP99Seconds(), 6)).append(',')
            .append(Double.isNaN(s.budgetLevel()) ? "" : Values.format(s.budgetLevel(), 3)).append('\n');
      }
    }
    return out.toString();
  }

  private static String csvField(String value) {
    if (value.contains(",") || value.contains("\"")) {
      return '"' + value.replace("\"", "\"\"") + '"';
    }
    return value;
  }

  /**
   * {@code {"policies":[{"name":…,"summary":{…},"series":[{"t":…,"goodput":…,"timeouts":…,
   * "concurrency":…,"latencySeconds":…,…},…]}]}}: the summary starts with baselineGoodput, recovered,
   * recoverySeconds, peakConcurrency, amplification, successRatio; each series entry with t, goodput,
   * timeouts, concurrency, latencySeconds; more keys follow those.
   */
  public static String json(SimulationResult result) {
    Json json = Json.lines().object().field("policies").array();
    for (PolicyResult p : result.policies()) {
      Summary s = p.summary();
      json.object().field("name").string(p.name())
          .field("summary").object()
          .field("baselineGoodput").decimal(s.baselineGoodput(), 3)
          .field("recovered").bool(s.recovered())
          .field("recoverySeconds").number(s.recoverySeconds())
          .field("peakConcurrency").number(s.peakConcurrency())
          .field("amplification").decimal(s.amplification(), 4)
          .field("successRatio").decimal(s.successRatio(), 4)
          .field("goodputAfterFault").decimal(s.goodputAfterFault(), 3)
          .field("p99LatencySeconds").decimal(s.p99LatencySeconds(), 6)
          .field("logicalRequests").number(s.logicalRequests())
          .field("attempts").number(s.attempts())
          .endObject()
          .field("series").array();
      for (Second t : p.series()) {
        json.object().field("t").number(t.t())
            .field("goodput").number(t.goodput())
            .field("timeouts").number(t.timeouts())
            .field("concurrency").number(t.concurrency())
            .field("latencySeconds").decimal(t.latencySeconds(), 6)
            .field("newRequests").number(t.newRequests())
            .field("attempts").number(t.attempts())
            .field("errors").number(t.errors())
            .field("retries").number(t.retries())
            .field("gaveUp").number(t.gaveUp())
            .field("peakConcurrency").number(t.peakConcurrency())
            .field("clientP50Seconds").decimal(t.clientP50Seconds(), 6)
            .field("clientP99Seconds").decimal(t.clientP99Seconds(), 6)
            .field("budgetLevel").decimal(t.budgetLevel(), 3)
            .endObject();
      }
      json.endArray().endObject();
    }
    return json.endArray().endObject() + "\n";
  }

  /** A JSON string literal (see {@link Json#quote}). */
  static String jsonString(String value) {
    return Json.quote(value);
  }
}
