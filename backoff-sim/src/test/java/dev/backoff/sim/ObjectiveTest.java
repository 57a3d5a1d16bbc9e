package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.backoff.sim.Objective.Metric;
import java.util.List;
import org.junit.jupiter.api.Test;

class ObjectiveTest {
  @Test
  void parsesTheExample() {
    List<Objective> objectives = Objective.parseAll("recovers>=0.95,amplification<=1.3,p99<=10s");
    assertThat(objectives).extracting(Objective::metric)
        .containsExactly(Metric.RECOVERS, Metric.AMPLIFICATION, Metric.P99);
    assertThat(objectives).extracting(Objective::threshold).containsExactly(0.95, 1.3, 10.0);
    assertThat(objectives).extracting(Objective::strict).containsExactly(false, false, false);
    assertThat(objectives).extracting(Objective::toString)
        .containsExactly("recovers>=0.95", "amplification<=1.3", "p99<=10s");
  }

  @Test
  void parsesEveryMetricWithItsUnit() {
    List<Objective> objectives = Objective.parseAll(
        " recovers >= 95% , success-ratio>0.999, p99 < 1.5s, recovery-time<=1m30s, peak-concurrency<=600,"
            + " amplification<2");
    assertThat(objectives).extracting(Objective::threshold).containsExactly(0.95, 0.999, 1.5, 90.0, 600.0, 2.0);
    assertThat(objectives).extracting(Objective::strict).containsExactly(false, true, true, false, false, true);
    assertThat(objectives.get(0).toString()).isEqualTo("recovers>=95%");
  }

  @Test
  void parsesGoodputAsAFractionBoundFromBelow() {
    List<Objective> objectives = Objective.parseAll("goodput>=90%, amplification<=1.3");
    assertThat(objectives).extracting(Objective::metric).containsExactly(Metric.GOODPUT, Metric.AMPLIFICATION);
    Objective goodput = objectives.get(0);
    assertThat(goodput.threshold()).isEqualTo(0.9);
    assertThat(goodput.toString()).isEqualTo("goodput>=90%");
    assertThat(Objective.parseAll("goodput>0.95").get(0).strict()).isTrue();
    assertThat(Metric.GOODPUT.higherIsBetter()).isTrue();
    assertThat(goodput.isMetBy(0.9)).isTrue();
    assertThat(goodput.isMetBy(0.89)).isFalse();
    assertThat(goodput.margin(0.99)).isCloseTo(0.1, within(1e-12));
    assertThat(Metric.GOODPUT.format(0.942)).isEqualTo("94.2%");
  }

  @Test
  void judgesValuesAgainstTheBound() {
    Objective atMost = Objective.parseAll("amplification<=1.3").get(0);
    assertThat(atMost.isMetBy(1.3)).isTrue();
    assertThat(atMost.isMetBy(1.31)).isFalse();
    assertThat(atMost.isMetBy(Double.NaN)).isFalse();
    assertThat(atMost.margin(1.17)).isCloseTo(0.1, within(1e-12));
    assertThat(atMost.margin(1.69)).isCloseTo(-0.3, within(1e-12));
    assertThat(atMost.margin(Double.POSITIVE_INFINITY)).isEqualTo(Double.NEGATIVE_INFINITY);
    assertThat(atMost.margin(Double.NaN)).isEqualTo(Double.NEGATIVE_INFINITY);
    Objective below = Objective.parseAll("amplification<1.3").get(0);
    assertThat(below.isMetBy(1.3)).isFalse();
    Objective atLeast = Objective.parseAll("recovers>=0.8").get(0);
    assertThat(atLeast.isMetBy(0.8)).isTrue();
    assertThat(atLeast.isMetBy(0.6)).isFalse();
    assertThat(atLeast.margin(1.0)).isCloseTo(0.25, within(1e-12));
    Objective zero = Objective.parseAll("recovery-time<=0s").get(0);
    assertThat(zero.margin(2)).isEqualTo(-2.0); // a threshold of 0 scales by 1
  }

  @Test
  void formatsValuesInTheMetricsUnits() {
    assertThat(Metric.RECOVERS.format(0.8)).isEqualTo("80.0%");
    assertThat(Metric.AMPLIFICATION.format(1.234)).isEqualTo("1.23");
    assertThat(Metric.P99.format(1.5)).isEqualTo("1.50s");
    assertThat(Metric.RECOVERY_TIME.format(Double.POSITIVE_INFINITY)).isEqualTo("inf");
    assertThat(Metric.PEAK_CONCURRENCY.format(612.4)).isEqualTo("612");
    assertThat(Metric.P99.format(Double.NaN)).isEqualTo("-");
  }

  @Test
  void refusesBadObjectivesNamingTheBadPart() {
    assertBad("latency<=1s", "bad objective 'latency<=1s': unknown metric 'latency'; use recovers, success-ratio, "
        + "amplification, p99, recovery-time, peak-concurrency, goodput");
    assertBad("goodput<=0.9", "bad objective 'goodput<=0.9': goodput is better higher; bound it from below with >=");
    assertBad("goodput>=1.2", "bad objective 'goodput>=1.2': goodput value '1.2': must be a fraction from 0 to 1");
    assertBad("goodput>=90", "goodput value '90': must be a fraction from 0 to 1 (or 0% to 100%)");
    assertBad("goodput>=0.9,goodput>0.8", "goodput is already bounded by 'goodput>=0.9'; give each metric once");
    assertBad("good-put>=0.9", "unknown metric 'good-put'");
    assertBad("latency", "bad objective 'latency': unknown metric 'latency'; use");
    assertBad("p99<=10", "bad objective 'p99<=10': p99 value '10': ");
    assertBad("p99<=10", "write 10s");
    assertBad("p99<=", "bad objective 'p99<=': no value after '<='");
    assertBad("amplification>=1.3", "bad objective 'amplification>=1.3': amplification is better lower; bound it "
        + "from above with <=");
    assertBad("recovers<=0.9", "recovers is better higher; bound it from below with >=");
    assertBad("recovers=>0.9", "bad objective 'recovers=>0.9': operator '=>'; use >= or >");
    assertBad("recovers=0.9", "operator '='; use >= or >");
    assertBad("recovers>=1.5", "bad objective 'recovers>=1.5': recovers value '1.5': must be a fraction from 0 to 1");
    assertBad("recovers>=120%", "must be a fraction from 0 to 1 (or 0% to 100%)");
    assertBad("recovers>=lots", "recovers value 'lots': not a number");
    assertBad("amplification<=0", "amplification value '0': must be more than 0 (attempts per request)");
    assertThat(Objective.parseAll("amplification<=0.9")).hasSize(1); // a concurrency limit's refusals can make it < 1
    assertBad("peak-concurrency<=10.5", "must be a whole number of requests");
    assertBad("recovers>=0.9,,p99<=1s", "empty objective in 'recovers>=0.9,,p99<=1s' (a stray comma?)");
    assertBad("", "no objective given; write them like recovers>=0.95,amplification<=1.3,p99<=10s");
    assertBad("p99<=1s,p99<=2s", "objective 'p99<=2s': p99 is already bounded by 'p99<=1s'; give each metric once");
    assertBad("<=1s", "bad objective '<=1s': expected METRIC>=VALUE or METRIC<=VALUE");
  }

  private static void assertBad(String text, String message) {
    assertThatThrownBy(() -> Objective.parseAll(text)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message).satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }
}
