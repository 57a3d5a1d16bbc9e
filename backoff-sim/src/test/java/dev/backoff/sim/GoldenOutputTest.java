package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pins the exact output of two small runs (every model and fault, policies without random jitter so that only
 * the simulator's own code is pinned) against the files in {@code src/test/resources/golden/}. CI runs the
 * tests on JDK 17 and JDK 25, so this proves that the output is the same on both. A mismatch fails with the
 * first differing lines. The runs retry without limit ({@code max-attempts: unlimited}), as they did when
 * the files were recorded, so that they pin the model rather than the policies' attempt limits.
 *
 * <p>When the model changes on purpose, regenerate the files explicitly, review them and say so in the
 * commit: {@code mvn -pl backoff-sim -am test -Dtest=GoldenOutputTest -Dgolden.update=true
 * -Dsurefire.failIfNoSpecifiedTests=false}, then {@code git diff backoff-sim/src/test/resources/golden}.
 * Without {@code -Dgolden.update=true} the files are only read, never written.
 */
class GoldenOutputTest {
  private static final Path SOURCE = Path.of("src", "test", "resources", "golden");
  private static final int MAX_DIFF_LINES = 20;

  @Test
  void closedLoopKneeServerWithPauseAndCrash() throws Exception {
    Scenario scenario = Scenario.of(Map.of("clients", 200, "duration", "60s",
        "faults", "pause@20s+10s,crash@40s+2s", "policies", "fixed,none", "max-attempts", "unlimited"));
    assertMatchesGolden("closed-loop-knee-pause-crash.json", Output.json(Simulator.run(scenario)));
  }

  @Test
  void openLoopPoolServerWithCapacityAndLatencyFaults() throws Exception {
    Scenario scenario = Scenario.of(Map.of("client", "open", "rate", 50, "server", "pool", "workers", 4,
        "service-time", "50ms", "service-distribution", "exponential", "duration", "60s",
        "faults", "capacity@20s+10s:0.5,latency@40s+5s:100ms", "policies", "fixed", "max-attempts", "unlimited"));
    assertMatchesGolden("open-loop-pool-capacity-latency.json", Output.json(Simulator.run(scenario)));
  }

  /**
   * The gates and the budget, as the call state machine drives them: a rate limiter that throttles (firm
   * waits and re-checks), a shared breaker, a budget (recorded before the simulator was driven by the machine, and unchanged by it).
   */
  @Test
  void gatesAndBudgetThroughTheCallStateMachine() throws Exception {
    Scenario scenario = Scenario.of(Map.ofEntries(Map.entry("clients", 300), Map.entry("think-mean", "5s"),
        Map.entry("server", "pool"), Map.entry("workers", 20), Map.entry("queue-size", 20),
        Map.entry("service-time", "100ms"), Map.entry("service-distribution", "exponential"),
        Map.entry("reject-status", 429), Map.entry("duration", "60s"), Map.entry("faults", "capacity@15s+20s:0.3"),
        Map.entry("max-attempts", 5),
        Map.entry("policies", "exponential+adaptive,fixed+breaker+budget,linear+adaptive+budget")));
    assertMatchesGolden("gates-and-budget.json", Output.json(Simulator.run(scenario)));
  }

  /** The contention scenario's clients, each one call driven by the call state machine, a breaker and a budget. */
  @Test
  void contentionWithABreakerAndABudget() throws Exception {
    assertMatchesGolden("contention-breaker-budget.json", Contention.json(Contention.run(Map.of("clients", "20,60",
        "runs", 3, "strategies", "none,exponential+breaker,fixed+budget"))));
  }

  @Test
  void aMismatchNamesTheFirstDifferingLines() {
    assertThat(firstDifferences("a\nb\nc\nd\n", "a\nb\nX\nd\ne\n")).isEqualTo("""
        first difference at line 3 (expected 4 lines, got 5):
        - c
        + X
        - <no line 5>
        + e
        """);
    assertThat(firstDifferences("same\n", "same\n")).isNull();
    assertThatThrownBy(() -> check("closed-loop-knee-pause-crash.json", "{\n  \"a\": 1\n}\n", "{}"))
        .isInstanceOf(AssertionError.class)
        .hasMessageStartingWith("output differs from golden/closed-loop-knee-pause-crash.json")
        .hasMessageEndingWith("first difference at line 1 (expected 3 lines, got 1):\n"
            + "- {\n+ {}\n-   \"a\": 1\n+ <no line 2>\n- }\n+ <no line 3>\n");
  }

  /** Compares {@code actual} with the golden file, or rewrites the file when {@code golden.update} is true. */
  private static void assertMatchesGolden(String name, String actual) throws IOException {
    if (Boolean.getBoolean("golden.update")) {
      if (!Files.isDirectory(SOURCE)) {
        throw new IllegalStateException("golden.update needs the module directory as the working directory, was "
            + Path.of("").toAbsolutePath());
      }
      Files.writeString(SOURCE.resolve(name), actual, StandardCharsets.UTF_8);
      System.out.println("rewrote " + SOURCE.resolve(name) + ": review it with git diff before committing");
      return;
    }
    String expected;
    try (InputStream in = GoldenOutputTest.class.getResourceAsStream("/golden/" + name)) {
      if (in == null) {
        throw new AssertionError("no golden file golden/" + name + " on the test class path; create it with"
            + " -Dgolden.update=true");
      }
      expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    check(name, expected, actual);
  }

  private static void check(String name, String expected, String actual) {
    String differences = firstDifferences(expected, actual);
    if (differences != null) {
      throw new AssertionError("output differs from golden/" + name + ", " + differences);
    }
  }

  /**
   * The first {@value #MAX_DIFF_LINES} lines that differ, line by line from the first difference, as
   * {@code - expected} and {@code + actual}; null if the texts are equal.
   */
  static String firstDifferences(String expected, String actual) {
    if (expected.equals(actual)) {
      return null;
    }
    String[] want = expected.split("\n", -1);
    String[] got = actual.split("\n", -1);
    int wantLines = expected.endsWith("\n") ? want.length - 1 : want.length;
    int gotLines = actual.endsWith("\n") ? got.length - 1 : got.length;
    int first = 0;
    while (first < want.length && first < got.length && want[first].equals(got[first])) {
      first++;
    }
    StringBuilder text = new StringBuilder("first difference at line ").append(first + 1)
        .append(" (expected ").append(wantLines).append(" lines, got ").append(gotLines).append("):\n");
    int shown = 0;
    for (int line = first; line < Math.max(wantLines, gotLines) && shown < MAX_DIFF_LINES; line++) {
      String wanted = line < wantLines ? want[line] : null;
      String gotten = line < gotLines ? got[line] : null;
      if (wanted != null && wanted.equals(gotten)) {
        continue;
      }
      text.append("- ").append(wanted == null ? "<no line " + (line + 1) + ">" : wanted).append('\n');
      text.append("+ ").append(gotten == null ? "<no line " + (line + 1) + ">" : gotten).append('\n');
      shown++;
    }
    return text.toString();
  }
}
