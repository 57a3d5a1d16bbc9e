package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Tag;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * Over generated scenarios (300 to 2000 clients or 30 to 200 arrivals a second, pauses and crashes early,
 * late and at the end of the run, timeouts from 2 s down to 500 µs, six policies): no verdict contradicts the
 * run's own numbers, and the table, JSON and CSV say the same thing. A few seconds: tagged slow.
 */
class SummaryProperties {
  private static final ObjectMapper JSON = new ObjectMapper()
      .enable(com.fasterxml.jackson.databind.DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
  private static final String[] POLICIES = {"fixed", "linear:10ms:10ms:1s", "storm-exponential", "full-jitter:100ms:5s+budget",
      "aws-standard", "exponential:50ms:2:2s"};
  private static final String[] TIMEOUTS = {"2s", "2s", "1s", "300ms", "100ms", "500us"};

  private static Scenario scenario(int clients, int faultAt, int faultLength, int tail, int timeout, int policy,
      boolean crash, boolean openLoop, long seed) {
    Map<String, Object> values = new LinkedHashMap<>();
    values.put("duration", (faultAt + faultLength + tail) + "s");
    values.put("faults", (crash ? "crash@" : "pause@") + faultAt + "s+" + faultLength + "s");
    values.put("timeout", TIMEOUTS[timeout]);
    values.put("policies", POLICIES[policy] + "," + POLICIES[(policy + 1) % POLICIES.length]);
    values.put("seed", seed);
    values.put("recovery-window", "5s");
    if (openLoop) {
      values.put("client", "open");
      values.put("rate", clients / 10); // 5 to 300 arrivals per second
    } else {
      values.put("clients", clients);
    }
    return Scenario.of(values);
  }

  @Property(tries = 30)
  @Tag("slow")
  void noVerdictContradictsItsNumbersAndEveryOutputAgrees(
      @ForAll @IntRange(min = 300, max = 2000) int clients,
      @ForAll @IntRange(min = 10, max = 60) int faultAt,
      @ForAll @IntRange(min = 1, max = 30) int faultLength,
      @ForAll @IntRange(min = 0, max = 200) int tail,
      @ForAll @IntRange(min = 0, max = 5) int timeout,
      @ForAll @IntRange(min = 0, max = 5) int policy,
      @ForAll boolean crash,
      @ForAll boolean openLoop,
      @ForAll @LongRange(min = 0, max = 1000) long seed) throws Exception {
    Scenario scenario = scenario(clients, faultAt, faultLength, tail, timeout, policy, crash, openLoop, seed);
    SimulationResult result = Simulator.run(scenario);
    for (PolicyResult policyResult : result.policies()) {
      checkAgainstTheSeries(scenario, policyResult);
    }
    checkOutputsAgree(result);
  }

  private static void checkAgainstTheSeries(Scenario scenario, PolicyResult policy) {
    Summary s = policy.summary();
    List<Second> series = policy.series();
    String name = policy.name() + " " + s;
    Statistics.collect(s.verdict()); // in the test report: about half not observed, then down, NO, yes
    int faultStart = (int) (scenario.disturbanceStartNanos() / 1_000_000_000L);
    int faultEnd = (int) ((scenario.disturbanceEndNanos() + 999_999_999L) / 1_000_000_000L);
    long baselineSuccesses = 0;
    long baselineAttempts = 0;
    for (int t = faultStart / 2; t < faultStart; t++) {
      baselineSuccesses += series.get(t).goodput();
      baselineAttempts += series.get(t).attempts();
    }
    long totalSuccesses = series.stream().mapToLong(Second::goodput).sum();

    // The issue's property: recovered means goodput after the fault >= 90% of a baseline that is itself > 0.
    if (s.recovered()) {
      assertThat(s.baselineGoodput()).as(name).isPositive();
      assertThat(s.goodputAfterFault()).as(name).isGreaterThanOrEqualTo(0.9 * s.baselineGoodput());
      assertThat(s.recoverySeconds()).as(name).isNotNull().isNotNegative();
    }
    switch (s.verdict()) {
      case LATE -> {
        assertThat(s.baselineGoodput()).as(name).isPositive();
        assertThat(s.goodputAfterFault()).as(name).isLessThan(0.9 * s.baselineGoodput());
      }
      case NOT_OBSERVED -> assertThat(scenario.seconds() - faultEnd).as(name)
          .isLessThan(RecoveryRule.effectiveWindow(5, s.baselineGoodput()));
      case DOWN_BEFORE_FAULT -> {
        assertThat(baselineAttempts).as(name).isPositive();
        assertThat(baselineSuccesses).as(name).isZero();
      }
      case NO_BASELINE -> assertThat(baselineAttempts).as(name).isZero();
      case NO_FAULT -> throw new AssertionError("every generated scenario has a fault: " + name);
      default -> { }
    }
    // A zero baseline with requests sent is always "down before the fault", never anything that reads as recovery.
    if (baselineAttempts > 0 && baselineSuccesses == 0) {
      assertThat(s.verdict()).as(name).isEqualTo(RecoveryVerdict.DOWN_BEFORE_FAULT);
    }
    assertThat(s.verdict().cameBack()).as(name).isEqualTo(s.recoverySeconds() != null);
    assertThat(Double.isNaN(s.p99SuccessLatencySeconds())).as(name).isEqualTo(totalSuccesses == 0);
    assertThat(Double.isNaN(s.amplification())).as(name).isEqualTo(s.logicalRequests() == 0);
    assertThat(Double.isNaN(s.successRatio())).as(name).isEqualTo(s.logicalRequests() == 0);
    for (Second second : series) {
      assertThat(Double.isNaN(second.clientP99Seconds())).as(name + " at " + second.t()).isEqualTo(second.goodput() == 0);
    }
  }

  /** The table, the summary CSV and the JSON, cell by cell, against each other and the summary. */
  private static void checkOutputsAgree(SimulationResult result) throws Exception {
    List<String> lines = Output.summaryTable(result).lines().toList();
    List<String> table = lines.subList(2, lines.indexOf(""));
    List<String> why = lines.subList(lines.indexOf("why:") + 1, lines.size());
    List<String> csv = Output.summaryCsv(result).lines().skip(1).toList();
    JsonNode json = JSON.readTree(Output.json(result)).get("policies");
    List<PolicyResult> policies = result.policies();
    assertThat(table).hasSize(policies.size());
    assertThat(csv).hasSize(policies.size());
    for (int i = 0; i < policies.size(); i++) {
      Summary s = policies.get(i).summary();
      String[] cells = table.get(i).split("\\s{2,}");
      String[] fields = csvFields(csv.get(i));
      JsonNode j = json.get(i).get("summary");
      String name = policies.get(i).name();
      assertThat(cells).as(table.get(i)).hasSize(10);
      assertThat(fields).as(csv.get(i)).hasSize(14);
      assertThat(why.get(i)).startsWith(name).endsWith("  " + s.reason());
      assertThat(fields[13]).isEqualTo(s.reason()).isEqualTo(j.get("verdictReason").asText());
      assertThat(cells[8]).isEqualTo(fields[12]).isEqualTo(Long.toString(s.unfinishedRequests()))
          .isEqualTo(j.get("unfinishedRequests").asText());
      assertThat(cells[0]).isEqualTo(name);
      assertThat(fields[0]).isEqualTo(name);
      assertThat(json.get(i).get("name").asText()).isEqualTo(name);

      RecoveryVerdict verdict = s.verdict();
      assertThat(cells[3]).isEqualTo(verdict.label());
      assertThat(fields[1]).isEqualTo(verdict.id());
      assertThat(j.get("verdict").asText()).isEqualTo(verdict.id());
      assertThat(fields[2]).isEqualTo(Boolean.toString(s.recovered()));
      assertThat(j.get("recovered").asBoolean()).isEqualTo(s.recovered());
      if (s.recoverySeconds() == null) {
        assertThat(cells[4]).isEqualTo("-");
        assertThat(fields[5]).isEmpty();
        assertThat(j.get("recoverySeconds").isNull()).isTrue();
      } else {
        assertThat(cells[4]).isEqualTo(s.recoverySeconds() + "s");
        assertThat(fields[5]).isEqualTo(s.recoverySeconds().toString());
        assertThat(j.get("recoverySeconds").asInt()).isEqualTo(s.recoverySeconds());
      }
      assertSame(s.baselineGoodput(), 1, cells[1], 3, fields[3], j.get("baselineGoodput"));
      assertSame(s.goodputAfterFault(), 1, cells[2], 3, fields[4], j.get("goodputAfterFault"));
      assertThat(cells[5]).isEqualTo(Integer.toString(s.peakConcurrency())).isEqualTo(fields[6]);
      assertSame(s.amplification(), 2, cells[6], 4, fields[7], j.get("amplification"));
      assertSame(s.successRatio(), -1, cells[7], 4, fields[8], j.get("successRatio"));
      assertThat(cells[7]).isEqualTo(Double.isNaN(s.successRatio()) ? "-"
          : Values.format(100 * s.successRatio(), 1) + "%");
      assertSame(s.p99SuccessLatencySeconds(), -1, cells[9], 6, fields[9], j.get("p99SuccessLatencySeconds"));
      assertThat(cells[9]).isEqualTo(Double.isNaN(s.p99SuccessLatencySeconds()) ? "-"
          : Values.human((long) (s.p99SuccessLatencySeconds() * 1e9)));
      assertThat(fields[10]).isEqualTo(Long.toString(s.logicalRequests())).isEqualTo(j.get("logicalRequests").asText());
      assertThat(fields[11]).isEqualTo(Long.toString(s.attempts())).isEqualTo(j.get("attempts").asText());
    }
  }

  /** The fields of one CSV line, a quoted field's doubled quotes undone. */
  private static String[] csvFields(String line) {
    List<String> fields = new java.util.ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c == '"') {
        if (quoted && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          field.append('"');
          i++;
        } else {
          quoted = !quoted;
        }
      } else if (c == ',' && !quoted) {
        fields.add(field.toString());
        field.setLength(0);
      } else {
        field.append(c);
      }
    }
    fields.add(field.toString());
    return fields.toArray(String[]::new);
  }

  /**
   * A missing number is {@code -}, an empty field and null; a present one is the same value in each (the
   * table cell checked when {@code tableDecimals >= 0}).
   */
  private static void assertSame(double value, int tableDecimals, String cell, int decimals, String field, JsonNode json) {
    if (Double.isNaN(value)) {
      assertThat(cell).isEqualTo("-");
      assertThat(field).isEmpty();
      assertThat(json.isNull()).isTrue();
      return;
    }
    if (tableDecimals >= 0) {
      assertThat(cell).isEqualTo(Values.format(value, tableDecimals));
    }
    assertThat(field).isEqualTo(Values.format(value, decimals));
    assertThat(json.decimalValue()).isEqualByComparingTo(new BigDecimal(field));
  }
}
