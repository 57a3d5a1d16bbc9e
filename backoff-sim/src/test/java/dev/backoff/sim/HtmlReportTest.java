package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Renders the reports in headless Chromium and checks that the inline script drew every chart. Chromium is
 * required under CI (CI=true): there a missing browser fails the test; elsewhere the test is skipped.
 */
class HtmlReportTest {
  @TempDir Path directory;

  private static final Scenario SCENARIO = Scenario.of(Map.of("clients", 1000, "duration", "80s",
      "faults", "pause@20s+10s", "policies", "storm-fixed,storm-exponential"));

  @Test
  void simulationReportIsSelfContained() {
    String html = HtmlReport.simulation(Simulator.run(SCENARIO));
    assertThat(html).doesNotContainPattern("(src|href)\\s*=\\s*[\"']?(https?:)?//");
    assertThat(html).doesNotContain("<link").doesNotContain("@import");
    assertThat(html).contains("\"name\":\"storm-fixed\"").contains("\"faults\":[[20.000,30.000]]");
  }

  @Test
  void theReportCarriesTheVerdictAndNullsForNumbersTheRunDoesNotHave() {
    Scenario timesOut = Scenario.of(Map.of("clients", 50, "duration", "60s", "faults", "pause@30s+5s",
        "timeout", "500us", "policies", "fixed"));
    String html = HtmlReport.simulation(Simulator.run(timesOut));
    assertThat(html).contains("\"recovered\":false,\"verdict\":\"down before the fault\",\"verdictReason\":\"no "
        + "request succeeded in the baseline window (15s to 30s)").contains("\"recoverySeconds\":null")
        .contains("\"p99SuccessLatencySeconds\":null").contains("\"p99\":[null,null,");
    assertThat(html).contains("p99 latency of successes", "success of started", "unfinished at the end", "<th>why</th>");
  }

  @Test
  void policyNamesCannotBreakOutOfTheEmbeddedData() {
    assertThat(Output.jsonString("</script><b>")).doesNotContain("<").doesNotContain(">");
  }

  @Test
  @Tag("browser")
  void simulationReportDrawsItsChartsInChromium() throws Exception {
    Path report = directory.resolve("report.html");
    Files.writeString(report, HtmlReport.simulation(Simulator.run(SCENARIO)));
    String dom = render(report);
    assertThat(attribute(dom, "data-charts-drawn")).isEqualTo("6");
    assertThat(count(dom, "<svg[^>]*class=\"chart\"")).isEqualTo(6);
    // One line per policy in each chart, each with real points, and the fault window shaded in all six.
    Matcher lines = Pattern.compile("<path d=\"(M[^\"]+)\"[^>]*class=\"line\" data-series=\"(storm-fixed|storm-exponential)\"").matcher(dom);
    int drawnLines = 0;
    while (lines.find()) {
      drawnLines++;
      if (!lines.group(1).contains("L")) {
        fail("a line with a single point: " + lines.group(0));
      }
    }
    assertThat(drawnLines).isGreaterThanOrEqualTo(10); // the p99 chart may have no points for fixed after the fault
    assertThat(count(dom, "class=\"fault\"")).isEqualTo(6);
    assertThat(dom).contains("<td class=\"verdict no\">NO</td>").contains("<td class=\"verdict yes\">yes</td>");
  }

  @Test
  @Tag("browser")
  void contentionReportDrawsItsChartsInChromium() throws Exception {
    Path report = directory.resolve("contention.html");
    Files.writeString(report, HtmlReport.contention(Contention.run(Map.of("clients", "5,10", "runs", 2))));
    String dom = render(report);
    assertThat(attribute(dom, "data-charts-drawn")).isEqualTo("2");
    assertThat(count(dom, "class=\"line\"")).isEqualTo(2 * Contention.STRATEGIES.size());
  }

  private static String attribute(String dom, String name) {
    Matcher m = Pattern.compile(name + "=\"([^\"]*)\"").matcher(dom);
    return m.find() ? m.group(1) : null;
  }

  private static int count(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }

  private String render(Path report) throws Exception {
    String browser = findChromium();
    if (browser == null) {
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        fail("chromium is not installed; CI must install it (apt-get install -y chromium) to check the report");
      }
      // Loud, so that nobody mistakes a skipped check for a passed one.
      String why = "chromium is not installed: the HTML report rendering check was SKIPPED; install it with "
          + "'apt-get install -y chromium' (as .ci/run does) to run it";
      System.err.println("WARNING: " + why);
      Assumptions.abort(why);
    }
    Path profile = Files.createDirectory(directory.resolve("profile-" + System.nanoTime()));
    Path out = directory.resolve("dom-" + System.nanoTime() + ".html");
    Process process = new ProcessBuilder(List.of(browser, "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
        "--user-data-dir=" + profile, "--dump-dom", report.toUri().toString()))
        .redirectOutput(out.toFile())
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    if (!process.waitFor(90, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      fail("chromium did not finish rendering in 90 s");
    }
    assertThat(process.exitValue()).as("chromium exit status").isZero();
    return Files.readString(out, StandardCharsets.UTF_8);
  }

  private static String findChromium() {
    for (String name : List.of("chromium", "chromium-browser", "google-chrome")) {
      for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
        Path candidate = Path.of(dir, name);
        if (Files.isExecutable(candidate)) {
          return candidate.toString();
        }
      }
    }
    return null;
  }
}
