package dev.backoff.lab;

import dev.backoff.sim.Json;
import java.util.List;
import java.util.Locale;

/** Text and JSON renderings of lab results, for the command line. Stateless. */
final class LabReport {
  private LabReport() {}

  /** {@code " | server concurrency: N, last delay: D"} when the sample knows the server, else "". */
  public static String serverSuffix(LabSample sample) {
    if (sample.serverState() == LabSample.ServerState.UNKNOWN) {
      return "";
    }
    if (sample.serverState() == LabSample.ServerState.UNREACHABLE) {
      return "  | server: not answering";
    }
    return "  | server concurrency: " + sample.concurrency() + ", last delay: "
        + LabServer.formatDuration((long) (sample.latencySeconds() * 1e9))
        + (sample.serverState() == LabSample.ServerState.PAUSED ? " (paused)" : "");
  }

  /** The series as a JSON array. */
  public static String seriesJson(List<LabSample> samples) {
    Json json = Json.compact().array();
    for (LabSample sample : samples) {
      json.raw(sample.toJson());
    }
    return json.endArray().toString();
  }

  /**
   * A client run as JSON: {@code {"policy":…,"clients":…,"summary":{…},"p50SuccessLatencySeconds":…,
   * "hedgeDelay":{…}|null,"series":[…]}}, with what the table's closing rows show ({@link
   * #latencyAndHedgeDelayRows}): the p50 latency of the logical requests that succeeded (null with none) and,
   * with an adaptive hedging delay ({@code delay} not null), its delay at the end, quantile, window and the load
   * cap's decisions.
   */
  public static String clientJson(String policy, int clients, LabSummary summary, List<LabSample> samples,
      LatencyHistogram latencies, dev.backoff.AdaptiveHedgeDelay delay) {
    Json json = Json.compact().object().field("policy").string(policy).field("clients").number(clients)
        .field("summary").raw(summary.toJson())
        .field("p50SuccessLatencySeconds").decimal(latencies.quantileSeconds(0.5), 6)
        .field("hedgeDelay");
    if (delay == null) {
      json.nullValue();
    } else {
      json.object().field("delaySeconds").decimal(delay.delayNanos() / 1e9, 6)
          .field("quantile").numberText(java.math.BigDecimal.valueOf(delay.quantile()).toPlainString())
          .field("window").number(delay.window())
          .field("hedgesSent").number(delay.hedgesSent()).field("hedgesRefused").number(delay.hedgesRefused())
          .field("maxExtraLoad").numberText(java.math.BigDecimal.valueOf(delay.maxExtraLoad()).toPlainString())
          .endObject();
    }
    return json.field("series").raw(seriesJson(samples)).endObject().toString();
  }

  /** A client run's summary as aligned lines. */
  public static String summaryTable(String policy, LabSummary summary, FleetTotals totals) {
    StringBuilder text = new StringBuilder();
    row(text, "policy", policy);
    row(text, "baseline goodput", format("%.1f req/s", summary.baselineGoodput()));
    row(text, "recovered", switch (summary.verdict()) {
      case NO_FAULT -> "no fault seen (pause the server to see one)";
      case RECOVERED -> "yes, " + summary.recoverySeconds() + "s after the fault";
      // Came back, but so late that goodput after the fault averaged below 90% of baseline: not a plain yes.
      case LATE -> "late, " + summary.recoverySeconds() + "s after the fault";
      default -> summary.verdict().label();
    });
    row(text, "because", summary.reason());
    row(text, "goodput after fault", format("%.1f req/s", summary.goodputAfterFault()));
    row(text, "peak concurrency", summary.peakConcurrency() < 0 ? "unknown" : Integer.toString(summary.peakConcurrency()));
    row(text, "amplification", format("%.2f attempts per request", summary.amplification()));
    row(text, "success ratio", format("%.3f", summary.successRatio()));
    row(text, "p99 latency", Double.isNaN(summary.p99SuccessLatencySeconds()) ? "n/a"
        : dev.backoff.spec.Durations.formatTruncated(Math.round(summary.p99SuccessLatencySeconds() * 1e9)) + " (logical requests that succeeded)");
    if (summary.hedging()) {
      row(text, "hedges", summary.hedgesSent() + " sent, " + summary.hedgesWon() + " won, "
          + totals.cancelled() + " attempts cancelled as losers");
    }
    row(text, "totals", totals.toString());
    return text.toString().stripTrailing();
  }

  /**
   * Rows for the end of a client run's summary: the p50 latency of the logical requests that succeeded, and,
   * with an adaptive hedging delay, its delay at the end and the load cap's decisions (hedges it let go and
   * refused, against its most extra load).
   */
  static String latencyAndHedgeDelayRows(LatencyHistogram latencies, dev.backoff.AdaptiveHedgeDelay delay) {
    StringBuilder text = new StringBuilder("\n");
    double p50 = latencies.quantileSeconds(0.5);
    row(text, "p50 latency", Double.isNaN(p50) ? "n/a"
        : dev.backoff.spec.Durations.formatTruncated(Math.round(p50 * 1e9)) + " (logical requests that succeeded)");
    if (delay != null) {
      row(text, "hedge delay", dev.backoff.spec.Durations.formatTruncated(delay.delayNanos()) + " at the end (p"
          + java.math.BigDecimal.valueOf(delay.quantile() * 100).stripTrailingZeros().toPlainString()
          + " of the last " + delay.window() + " latencies); load cap: " + delay.hedgesSent() + " hedges sent, "
          + delay.hedgesRefused() + " refused (at most " + delay.maxExtraLoad() + " per first attempt)");
    }
    return text.toString().stripTrailing();
  }

  private static void row(StringBuilder text, String name, String value) {
    text.append(String.format(Locale.ROOT, "%-20s %s%n", name + ":", value));
  }

  private static String format(String pattern, double value) {
    return Double.isNaN(value) ? "n/a" : String.format(Locale.ROOT, pattern, value);
  }

  /** A JSON string literal (the one JSON writer's escaping). */
  public static String quote(String text) {
    return Json.quote(text);
  }
}
