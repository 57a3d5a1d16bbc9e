package dev.backoff.sim;

import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Writes results as text: the summary table with a goodput picture per policy, the retry-storm experiment's
 * 5-second client lines, CSV, and JSON in the shape the command line documents. A number the run does not
 * have (NaN in {@link Summary} and {@link Second}) is {@code -} in the table, an empty field in CSV and
 * {@code null} in JSON. Numbers are formatted without {@code Double.toString}, so every JDK writes the same
 * bytes. Stateless.
 */
public final class Output {
  private Output() {}

  /** Sparkline levels, lowest first; a bucket with no success at all is {@link #NONE}. */
  private static final String LEVELS = "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588";
  private static final char NONE = '\u00b7';
  private static final int PICTURE_WIDTH = 80;

  /**
   * What {@code backoff simulate} prints by default: the {@linkplain #summaryTable summary table}, a blank
   * line, then the {@linkplain #goodputPicture goodput picture}.
   */
  public static String table(SimulationResult result) {
    return summaryTable(result) + "\n" + goodputPicture(result);
  }

  /**
   * The retry-storm experiment's client lines every 5 seconds ({@code OK: x req/sec, errors: y req/sec,
   * timedout: z req/sec}) with the server's concurrency and latency, per policy, each policy's block followed
   * by a blank line.
   */
  public static String timeline(SimulationResult result) {
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
            .append(Values.human((long) (last.latencySeconds() * 1e9)));
        appendProtection(out, policy, end);
        out.append('\n');
      }
      out.append('\n');
    }
    return out.toString();
  }

  /**
   * The 5-second timeline's storm-protection part for the seconds before {@code end}, for the mechanisms the
   * policy uses: the breakers' open and half-open time fractions and the calls they refused per second.
   */
  private static void appendProtection(StringBuilder out, PolicyResult policy, int end) {
    List<Protection> series = policy.protection();
    if (policy.usesAdaptive()) {
      double waits = fiveSeconds(series, end, Protection::limiterWaits);
      double refused = fiveSeconds(series, end, Protection::limiterRefused);
      double rate = series.get(end - 1).limiterFillRate();
      out.append(" | limiter: ").append(rate > 0 ? Values.format(rate, 1) + " req/sec" : "off")
          .append(", waits: ").append(Values.format(waits / 5, 2)).append(" req/sec, refused: ")
          .append(Values.format(refused / 5, 2)).append(" req/sec");
    }
    if (policy.usesHedging()) {
      double sent = fiveSeconds(series, end, Protection::hedgesSent);
      double won = fiveSeconds(series, end, Protection::hedgesWon);
      out.append(" | hedges: ").append(Values.format(sent / 5, 2)).append(" req/sec, in flight: ")
          .append(series.get(end - 1).hedgesInFlight()).append(", won: ").append(Values.format(won / 5, 2))
          .append(" req/sec");
    }
    if (policy.usesConcurrencyLimiter()) {
      double first = fiveSeconds(series, end, Protection::concurrencyRefusedFirst);
      double later = fiveSeconds(series, end, Protection::concurrencyRefusedRetries);
      out.append(" | concurrency limit: ").append(series.get(end - 1).concurrencyLimit()).append(", refused first: ")
          .append(Values.format(first / 5, 2)).append(" req/sec, retries: ").append(Values.format(later / 5, 2))
          .append(" req/sec");
    }
    if (!policy.usesBreaker()) {
      return;
    }
    double open = 0;
    double halfOpen = 0;
    double refused = 0;
    for (int t = end - 5; t < end; t++) {
      Protection p = series.get(t);
      open += p.breakerOpen();
      halfOpen += p.breakerHalfOpen();
      refused += p.refused();
    }
    out.append(" | breaker open: ").append(Values.format(100 * open / 5, 0)).append("%, half-open: ")
        .append(Values.format(100 * halfOpen / 5, 0)).append("%, refused: ").append(Values.format(refused / 5, 2))
        .append(" req/sec");
  }

  /** The sum of a count over the 5 seconds before {@code end}. */
  private static double fiveSeconds(List<Protection> series, int end, ToLongFunction<Protection> field) {
    double sum = 0;
    for (int t = end - 5; t < end; t++) {
      sum += field.applyAsLong(series.get(t));
    }
    return sum;
  }

  /** Whether a policy refuses calls locally: it has a breaker or an adaptive limiter. */
  private static boolean refuses(PolicyResult policy) {
    return policy.usesBreaker() || policy.usesAdaptive();
  }

  private static boolean anyBreaker(SimulationResult result) {
    for (PolicyResult policy : result.policies()) {
      if (refuses(policy)) {
        return true;
      }
    }
    return false;
  }

  private static boolean anyConcurrency(SimulationResult result) {
    for (PolicyResult policy : result.policies()) {
      if (policy.usesConcurrencyLimiter()) {
        return true;
      }
    }
    return false;
  }

  private static boolean anyHedging(SimulationResult result) {
    for (PolicyResult policy : result.policies()) {
      if (policy.usesHedging()) {
        return true;
      }
    }
    return false;
  }

  private static boolean anyProtection(SimulationResult result) {
    for (PolicyResult policy : result.policies()) {
      if (!policy.protection().isEmpty()) {
        return true;
      }
    }
    return false;
  }

  /**
   * The summary table: one row per policy with its baseline and after-fault goodput, the {@link RecoveryVerdict}
   * verdict's label, the recovery time, peak concurrency, amplification, success ratio and the p99 latency of
   * the requests that succeeded, then under the table one line per policy saying why its verdict is what it
   * is ({@link Summary#reason()}). The success ratio is of the requests started before the end of the run;
   * the column {@code unfinished} counts those still neither succeeded nor given up at the end. Missing
   * numbers print as {@code -}. When a policy has a circuit breaker or
   * an adaptive limiter, a column {@code refused} gives the calls they refused (failed at once, never sent;
   * {@code -} for the policies without either); when a policy hedges, a column {@code hedges (won)} the
   * hedges sent and the calls a hedge won; when a policy has a concurrency limiter, a column
   * {@code conc. shed first/retry}: the first attempts and the retries with hedges it refused.
   */
  public static String summaryTable(SimulationResult result) {
    boolean refusals = anyBreaker(result);
    boolean hedging = anyHedging(result);
    String[] header = {"policy", "baseline/s", "after/s", "recovered", "recovery", "peak conc.", "amplification",
        "success/started", "unfinished", "p99 (successes)"};
    if (refusals) {
      header = java.util.Arrays.copyOf(header, header.length + 1);
      header[header.length - 1] = "refused";
    }
    if (hedging) {
      header = java.util.Arrays.copyOf(header, header.length + 1);
      header[header.length - 1] = "hedges (won)";
    }
    boolean concurrency = anyConcurrency(result);
    if (concurrency) {
      header = java.util.Arrays.copyOf(header, header.length + 1);
      header[header.length - 1] = "conc. shed first/retry";
    }
    List<PolicyResult> policies = result.policies();
    String[][] rows = new String[policies.size()][];
    for (int i = 0; i < rows.length; i++) {
      PolicyResult p = policies.get(i);
      Summary s = p.summary();
      rows[i] = new String[] {p.name(), text(s.baselineGoodput(), 1), text(s.goodputAfterFault(), 1),
          s.verdict().label(), s.recoverySeconds() == null ? "-" : s.recoverySeconds() + "s",
          Integer.toString(s.peakConcurrency()), text(s.amplification(), 2),
          Double.isFinite(s.successRatio()) ? Values.format(100 * s.successRatio(), 1) + "%" : "-",
          Long.toString(s.unfinishedRequests()),
          Double.isFinite(s.p99SuccessLatencySeconds()) ? Values.human((long) (s.p99SuccessLatencySeconds() * 1e9))
              : "-"};
      if (refusals) {
        rows[i] = java.util.Arrays.copyOf(rows[i], rows[i].length + 1);
        rows[i][rows[i].length - 1] = refuses(p) ? Long.toString(p.refusedCalls() + p.limiterRefusedCalls()) : "-";
      }
      if (hedging) {
        rows[i] = java.util.Arrays.copyOf(rows[i], rows[i].length + 1);
        rows[i][rows[i].length - 1] = p.usesHedging() ? p.hedgesSent() + " (" + p.hedgesWon() + ")" : "-";
      }
      if (concurrency) {
        rows[i] = java.util.Arrays.copyOf(rows[i], rows[i].length + 1);
        rows[i][rows[i].length - 1] = p.usesConcurrencyLimiter()
            ? p.concurrencyRefusedFirst() + "/" + p.concurrencyRefusedRetries() : "-";
      }
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
    out.append("\nwhy:\n");
    for (PolicyResult p : policies) {
      out.append(p.name()).append(" ".repeat(widths[0] - p.name().length() + 2)).append(p.summary().reason())
          .append('\n');
    }
    return out.toString();
  }

  /**
   * Goodput over time, one line per policy: a sparkline with one character per bucket of seconds (as many
   * seconds as keep it within 80 characters), its height the bucket's mean successes per second on one scale
   * for all policies (the full block is the highest bucket of any policy), {@code ·} where nothing succeeded;
   * a last line marks with {@code ^} the buckets the faults (and an open-loop step, spike or ramp) touch.
   */
  public static String goodputPicture(SimulationResult result) {
    int seconds = result.scenario().seconds();
    int bucket = Math.max(1, (seconds + PICTURE_WIDTH - 1) / PICTURE_WIDTH);
    int columns = (seconds + bucket - 1) / bucket;
    List<PolicyResult> policies = result.policies();
    double[][] means = new double[policies.size()][columns];
    double highest = 0;
    int nameWidth = "policy".length();
    for (int p = 0; p < policies.size(); p++) {
      List<Second> series = policies.get(p).series();
      nameWidth = Math.max(nameWidth, policies.get(p).name().length());
      for (int c = 0; c < columns; c++) {
        int from = c * bucket;
        int to = Math.min(seconds, from + bucket);
        long sum = 0;
        for (int t = from; t < to; t++) {
          sum += series.get(t).goodput();
        }
        means[p][c] = (double) sum / (to - from);
        highest = Math.max(highest, means[p][c]);
      }
    }
    List<Scenario.Window> windows = result.scenario().disturbanceWindows();
    List<String> names = new java.util.ArrayList<>();
    for (Scenario.Window window : windows) {
      names.add(window.name());
    }
    StringBuilder out = new StringBuilder("goodput over time, one character per ")
        .append(bucket).append(bucket == 1 ? " second" : " seconds").append(": ");
    if (highest > 0) {
      out.append(LEVELS.charAt(LEVELS.length() - 1)).append(" = ").append(Values.format(highest, 1)).append("/s, ");
    }
    out.append(NONE).append(highest > 0 ? " = none" : " = none (nothing succeeded in any run)");
    if (!windows.isEmpty()) {
      out.append(", ^ = ").append(String.join(", ", names));
    }
    out.append('\n');
    for (int p = 0; p < policies.size(); p++) {
      String name = policies.get(p).name();
      out.append(name).append(" ".repeat(nameWidth - name.length())).append("  ");
      for (int c = 0; c < columns; c++) {
        out.append(level(means[p][c], highest));
      }
      out.append('\n');
    }
    if (!windows.isEmpty()) {
      StringBuilder marks = new StringBuilder();
      for (int c = 0; c < columns; c++) {
        long from = c * bucket * 1_000_000_000L;
        long to = Math.min(seconds, (c + 1) * bucket) * 1_000_000_000L;
        boolean touched = false;
        for (Scenario.Window window : windows) {
          touched |= window.startNanos() < to && from < window.endNanos();
        }
        marks.append(touched ? '^' : ' ');
      }
      out.append(" ".repeat(nameWidth + 2)).append(marks.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }

  private static char level(double value, double highest) {
    if (!(value > 0)) {
      return NONE;
    }
    int index = (int) Math.ceil(value / highest * LEVELS.length()) - 1;
    return LEVELS.charAt(Math.max(0, Math.min(LEVELS.length() - 1, index)));
  }

  /** {@code value} with {@code decimals} places, or {@code -} if the run has no such number (NaN). */
  private static String text(double value, int decimals) {
    return Double.isFinite(value) ? Values.format(value, decimals) : "-";
  }

  /** {@code value} with {@code decimals} places, or an empty CSV field if the run has no such number (NaN). */
  private static String csvNumber(double value, int decimals) {
    return Double.isFinite(value) ? Values.format(value, decimals) : "";
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

  /**
   * Every per-second value of every policy, one row per policy and second, with a header line; the client
   * latencies of a second in which nothing succeeded and the budget level of a policy without one are empty.
   * When a policy uses a storm-protection mechanism, every row gets the {@link Protection} columns
   * ({@code breakerOpen,breakerHalfOpen,refused,limiterFillRate,limiterWaits,limiterRefused,hedgesSent,
   * hedgesInFlight,hedgesWon}), empty for the policies without one; when a policy has a concurrency limiter,
   * also {@code concurrencyLimit,concurrencyRefusedFirst,concurrencyRefusedRetries}.
   */
  public static String csv(SimulationResult result) {
    boolean protection = anyProtection(result);
    boolean concurrency = anyConcurrency(result);
    StringBuilder out = new StringBuilder("policy,t,newRequests,attempts,goodput,errors,timeouts,retries,gaveUp,"
        + "concurrency,peakConcurrency,latencySeconds,clientP50Seconds,clientP99Seconds,budgetLevel"
        + (protection ? ",breakerOpen,breakerHalfOpen,refused,limiterFillRate,limiterWaits,limiterRefused,"
            + "hedgesSent,hedgesInFlight,hedgesWon" : "")
        + (concurrency ? ",concurrencyLimit,concurrencyRefusedFirst,concurrencyRefusedRetries" : "") + "\n");
    for (PolicyResult policy : result.policies()) {
      String name = csvField(policy.name());
      List<Protection> extra = policy.protection();
      for (Second s : policy.series()) {
        out.append(name).append(',').append(s.t()).append(',').append(s.newRequests()).append(',')
            .append(s.attempts()).append(',').append(s.goodput()).append(',').append(s.errors()).append(',')
            .append(s.timeouts()).append(',').append(s.retries()).append(',').append(s.gaveUp()).append(',')
            .append(s.concurrency()).append(',').append(s.peakConcurrency()).append(',')
            .append(Values.format(s.latencySeconds(), 6)).append(',').append(csvNumber(s.clientP50Seconds(), 6))
            .append(',').append(csvNumber(s.clientP99Seconds(), 6)).append(',')
            .append(csvNumber(s.budgetLevel(), 3));
        if (protection) {
          if (extra.isEmpty()) {
            out.append(",,,,,,,,,");
          } else {
            Protection p = extra.get(s.t());
            out.append(',').append(Values.format(p.breakerOpen(), 3)).append(',')
                .append(Values.format(p.breakerHalfOpen(), 3)).append(',').append(p.refused()).append(',')
                .append(csvNumber(p.limiterFillRate(), 3)).append(',').append(p.limiterWaits()).append(',')
                .append(p.limiterRefused()).append(',').append(p.hedgesSent()).append(',')
                .append(p.hedgesInFlight()).append(',').append(p.hedgesWon());
          }
        }
        if (concurrency) {
          if (policy.usesConcurrencyLimiter()) {
            Protection p = extra.get(s.t());
            out.append(',').append(p.concurrencyLimit()).append(',').append(p.concurrencyRefusedFirst()).append(',')
                .append(p.concurrencyRefusedRetries());
          } else {
            out.append(",,,");
          }
        }
        out.append('\n');
      }
    }
    return out.toString();
  }

  /**
   * The summary, one row per policy with a header line: {@code policy,verdict,recovered,baselineGoodput,
   * goodputAfterFault,recoverySeconds,peakConcurrency,amplification,successRatio,p99SuccessLatencySeconds,
   * logicalRequests,attempts,unfinishedRequests,verdictReason}; the verdict is its {@linkplain RecoveryVerdict#id() id}; a number the run does not
   * have is an empty field; decimals as in {@link #json}. When a policy has a breaker or an adaptive
   * limiter, a column {@code refused} (the calls they refused; empty for the policies without either); when
   * a policy hedges, columns {@code hedgesSent,hedgesWon}; when a policy has a concurrency limiter, columns
   * {@code concurrencyRefusedFirst,concurrencyRefusedRetries}.
   */
  public static String summaryCsv(SimulationResult result) {
    boolean refusals = anyBreaker(result);
    StringBuilder out = new StringBuilder("policy,verdict,recovered,baselineGoodput,goodputAfterFault,"
        + "recoverySeconds,peakConcurrency,amplification,successRatio,p99SuccessLatencySeconds,logicalRequests,"
        + "attempts,unfinishedRequests,verdictReason" + (refusals ? ",refused" : "") + (anyHedging(result) ? ",hedgesSent,hedgesWon" : "")
        + (anyConcurrency(result) ? ",concurrencyRefusedFirst,concurrencyRefusedRetries" : "") + "\n");
    for (PolicyResult policy : result.policies()) {
      Summary s = policy.summary();
      out.append(csvField(policy.name())).append(',').append(s.verdict().id()).append(',').append(s.recovered())
          .append(',').append(csvNumber(s.baselineGoodput(), 3)).append(',')
          .append(csvNumber(s.goodputAfterFault(), 3)).append(',')
          .append(s.recoverySeconds() == null ? "" : s.recoverySeconds().toString()).append(',')
          .append(s.peakConcurrency()).append(',').append(csvNumber(s.amplification(), 4)).append(',')
          .append(csvNumber(s.successRatio(), 4)).append(',').append(csvNumber(s.p99SuccessLatencySeconds(), 6))
          .append(',').append(s.logicalRequests()).append(',').append(s.attempts()).append(',')
          .append(s.unfinishedRequests()).append(',').append(csvField(s.reason()));
      if (refusals) {
        out.append(',').append(refuses(policy)
            ? Long.toString(policy.refusedCalls() + policy.limiterRefusedCalls()) : "");
      }
      if (anyHedging(result)) {
        out.append(',').append(policy.usesHedging() ? policy.hedgesSent() + "," + policy.hedgesWon() : ",");
      }
      if (anyConcurrency(result)) {
        out.append(',').append(policy.usesConcurrencyLimiter()
            ? policy.concurrencyRefusedFirst() + "," + policy.concurrencyRefusedRetries() : ",");
      }
      out.append('\n');
    }
    return out.toString();
  }

  static String csvField(String value) {
    if (value.contains(",") || value.contains("\"")) {
      return '"' + value.replace("\"", "\"\"") + '"';
    }
    return value;
  }

  /**
   * {@code {"policies":[{"name":…,"summary":{…},"series":[{"t":…,"goodput":…,"timeouts":…,
   * "concurrency":…,"latencySeconds":…,…},…]}]}}: the summary starts with baselineGoodput, recovered,
   * recoverySeconds, peakConcurrency, amplification, successRatio, then verdict (its
   * {@linkplain RecoveryVerdict#id() id}) and verdictReason (why, with the numbers), ..., unfinishedRequests; each series entry with t, goodput, timeouts, concurrency, latencySeconds;
   * more keys follow those. A number the run does not have is null. A policy with a breaker adds
   * {@code refused} to its summary and {@code breakerOpen}, {@code breakerHalfOpen} and {@code refused} to
   * each series entry; one with an adaptive limiter {@code limiterWaits} and {@code limiterRefused} to its
   * summary and {@code limiterFillRate} (0 until the first throttle), {@code limiterWaits} and
   * {@code limiterRefused} to each entry; one that hedges {@code hedgesSent} and {@code hedgesWon} to its
   * summary and {@code hedgesSent}, {@code hedgesInFlight} and {@code hedgesWon} to each entry; one with a
   * concurrency limiter {@code concurrencyRefusedFirst} and {@code concurrencyRefusedRetries} to its summary
   * and {@code concurrencyLimit}, {@code concurrencyRefusedFirst} and {@code concurrencyRefusedRetries} to each
   * entry (see {@link Protection}). A policy without the mechanism has none of its keys.
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
          .field("verdict").string(s.verdict().id())
          .field("verdictReason").string(s.reason())
          .field("goodputAfterFault").decimal(s.goodputAfterFault(), 3)
          .field("p99SuccessLatencySeconds").decimal(s.p99SuccessLatencySeconds(), 6)
          .field("logicalRequests").number(s.logicalRequests())
          .field("attempts").number(s.attempts())
          .field("unfinishedRequests").number(s.unfinishedRequests());
      if (p.usesBreaker()) {
        json.field("refused").number(p.refusedCalls());
      }
      if (p.usesAdaptive()) {
        json.field("limiterWaits").number(p.limiterWaits()).field("limiterRefused").number(p.limiterRefusedCalls());
      }
      if (p.usesHedging()) {
        json.field("hedgesSent").number(p.hedgesSent()).field("hedgesWon").number(p.hedgesWon());
      }
      if (p.usesConcurrencyLimiter()) {
        json.field("concurrencyRefusedFirst").number(p.concurrencyRefusedFirst())
            .field("concurrencyRefusedRetries").number(p.concurrencyRefusedRetries());
      }
      json.endObject().field("series").array();
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
            .field("budgetLevel").decimal(t.budgetLevel(), 3);
        if (p.usesBreaker()) {
          Protection protection = p.protection().get(t.t());
          json.field("breakerOpen").decimal(protection.breakerOpen(), 3)
              .field("breakerHalfOpen").decimal(protection.breakerHalfOpen(), 3)
              .field("refused").number(protection.refused());
        }
        if (p.usesAdaptive()) {
          Protection protection = p.protection().get(t.t());
          json.field("limiterFillRate").decimal(protection.limiterFillRate(), 3)
              .field("limiterWaits").number(protection.limiterWaits())
              .field("limiterRefused").number(protection.limiterRefused());
        }
        if (p.usesHedging()) {
          Protection protection = p.protection().get(t.t());
          json.field("hedgesSent").number(protection.hedgesSent())
              .field("hedgesInFlight").number(protection.hedgesInFlight())
              .field("hedgesWon").number(protection.hedgesWon());
        }
        if (p.usesConcurrencyLimiter()) {
          Protection protection = p.protection().get(t.t());
          json.field("concurrencyLimit").number(protection.concurrencyLimit())
              .field("concurrencyRefusedFirst").number(protection.concurrencyRefusedFirst())
              .field("concurrencyRefusedRetries").number(protection.concurrencyRefusedRetries());
        }
        json.endObject();
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
