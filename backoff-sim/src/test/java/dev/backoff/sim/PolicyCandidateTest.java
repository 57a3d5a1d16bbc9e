package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.Backoff;
import dev.backoff.Preset;
import dev.backoff.RetryPolicy;
import dev.backoff.sim.PolicyCandidate.Family;
import dev.backoff.spec.BudgetSpec;
import java.io.IOException;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PolicyCandidateTest {
  private static PolicyCandidate candidate(Family family, String initial, double multiplier, String cap, Integer attempts,
      String budget) {
    return new PolicyCandidate(family, null, dev.backoff.spec.Durations.parse(initial), multiplier,
        cap == null ? null : dev.backoff.spec.Durations.parse(cap), attempts, budget);
  }

  /** One candidate of every family and every budget kind. */
  static List<PolicyCandidate> everyKind() {
    return List.of(
        candidate(Family.FULL_JITTER, "100ms", 2, "20s", 5, "token-bucket"),
        candidate(Family.EQUAL_JITTER, "250ms", 1.5, "1m", 3, null),
        candidate(Family.NO_JITTER, "12.5ms", 3, "2.5s", 8, "grpc:20:0.2"),
        candidate(Family.DECORRELATED, "1s", 0, "30s", 4, "ratio:0.1::30s"),
        candidate(Family.FIXED, "1.5s", 0, null, 2, null),
        PolicyCandidate.preset(Preset.AWS_STANDARD, "aws:100"),
        new PolicyCandidate(Family.PRESET, "google-cloud", null, 0, null, 6, null),
        candidate(Family.FULL_JITTER, "100ms", 2, "20s", 8, null).withProtection(PolicyCandidate.Protection.ADAPTIVE),
        candidate(Family.FIXED, "1s", 0, null, 3, "token-bucket").withProtection(
            PolicyCandidate.Protection.CONCURRENCY),
        PolicyCandidate.preset(Preset.AWS_STANDARD, null).withProtection(PolicyCandidate.Protection.CONCURRENCY_AIMD),
        candidate(Family.FULL_JITTER, "100ms", 2, "20s", 2, null).withHedge(PolicyCandidate.Hedge.parse("p95")),
        candidate(Family.FIXED, "1s", 0, null, 3, "token-bucket").withProtection(
            PolicyCandidate.Protection.CONCURRENCY).withHedge(PolicyCandidate.Hedge.parse("150ms:2")),
        PolicyCandidate.preset(Preset.AWS_STANDARD, null).withHedge(
            PolicyCandidate.Hedge.parse("p99:window=500:max-extra-load=0.1")));
  }

  @Test
  void writesEachFamilyInTheOnePolicyGrammar() {
    assertThat(everyKind()).extracting(PolicyCandidate::policySpec).containsExactly(
        "exponential:100ms:2:20s:full+budget", "exponential:250ms:1.5:1m:equal", "exponential:12.5ms:3:2.5s:none+budget",
        "decorrelated:1s:30s+budget", "fixed:1.5s", "aws-standard+budget", "google-cloud",
        "exponential:100ms:2:20s:full+adaptive", "fixed:1s+budget+concurrency", "aws-standard+concurrency:aimd",
        "exponential:100ms:2:20s:full+hedge:p95", "fixed:1s+budget+concurrency+hedge:150ms:2",
        "aws-standard+hedge:p99:max-extra-load=0.1:window=500");
    assertThat(everyKind()).extracting(PolicyCandidate::budgetSpec).containsExactly(
        "token-bucket:500:5:10", null, "grpc:20:0.2", "ratio:0.1:10:30s", null, "token-bucket:100:5:10", null, null,
        "token-bucket:500:5:10", null, null, "token-bucket:500:5:10", null);
    assertThat(everyKind()).extracting(PolicyCandidate::mechanisms)
        .containsExactly(1, 0, 1, 1, 0, 1, 0, 1, 2, 1, 1, 3, 1);
    assertThat(everyKind().get(8).label()).isEqualTo("fixed:1s+budget+concurrency x3 token-bucket:500:5:10");
  }

  @Test
  void protectionsAreParsedFromTheirIds() {
    assertThat(PolicyCandidate.Protection.parseAll("concurrency, none")).containsExactly(
        PolicyCandidate.Protection.NONE, PolicyCandidate.Protection.CONCURRENCY);
    assertThat(PolicyCandidate.Protection.parseAll("all")).containsExactly(PolicyCandidate.Protection.values());
    assertThat(PolicyCandidate.Protection.parseAll("concurrency:aimd")).containsExactly(
        PolicyCandidate.Protection.CONCURRENCY_AIMD);
    assertThatThrownBy(() -> PolicyCandidate.Protection.parseAll("none,bulkhead"))
        .hasMessage("unknown protection 'bulkhead'; use none, adaptive, concurrency, concurrency:aimd or all");
    assertThatThrownBy(() -> PolicyCandidate.Protection.parseAll(""))
        .hasMessage("unknown protection ''; use none, adaptive, concurrency, concurrency:aimd or all");
  }

  @Test
  void hedgingIsParsedFromWhatTheHedgeSuffixTakes() {
    assertThat(PolicyCandidate.Hedge.parseAll("150ms, P95 ,none,p95.0,0.15s")).extracting(PolicyCandidate.Hedge::id)
        .containsExactly("none", "150ms", "p95");
    assertThat(PolicyCandidate.Hedge.parse("p99:2:max-extra-load=0.05:window=500").suffix())
        .isEqualTo("+hedge:p99:2:window=500");
    assertThat(PolicyCandidate.Hedge.parse("none")).isEqualTo(PolicyCandidate.Hedge.NONE);
    assertThat(PolicyCandidate.Hedge.NONE.suffix()).isEmpty();
    Map<String, String> refused = new java.util.LinkedHashMap<>();
    refused.put("none,nnoe", "unknown hedging 'nnoe'; did you mean 'none'?; use none, a quantile such as p95 (the "
        + "adaptive delay) or a delay such as 150ms");
    refused.put("adaptive", "unknown hedging 'adaptive'; use none, a quantile such as p95 (the adaptive delay) or a "
        + "delay such as 150ms");
    refused.put("p95x", "hedging 'p95x': hedge quantile 'p95x': not pNN (such as p95 or p99.9)");
    refused.put("150", "hedging '150': hedge delay '150': ");
    refused.put("p95:windw=10", "hedging 'p95:windw=10': hedge parameter 'windw': unknown; did you mean 'window'?");
    refused.put("none,", "empty hedging value (a stray comma?)");
    refused.put("p95+budget", "hedging 'p95+budget': 'p95+budget' is more than a hedging delay");
    refused.forEach((text, message) -> assertThatThrownBy(() -> PolicyCandidate.Hedge.parseAll(text)).as(text)
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(message));
  }

  @Test
  void aCandidateThatCannotRunIsRefused() {
    PolicyCandidate two = candidate(Family.FIXED, "1s", 0, null, 2, null);
    assertThatThrownBy(() -> two.withHedge(PolicyCandidate.Hedge.parse("p95:2")))
        .hasMessage("maxAttempts 2 leaves no room for +hedge:p95:2 (it needs 3)");
    assertThatThrownBy(() -> two.withProtection(PolicyCandidate.Protection.ADAPTIVE)
        .withHedge(PolicyCandidate.Hedge.parse("p95")))
        .hasMessage("the simulator does not run +adaptive with +hedge (a hedge waiting for the limiter's token is not "
            + "modelled)");
    assertThat(PolicyCandidate.fits(PolicyCandidate.Protection.CONCURRENCY, PolicyCandidate.Hedge.parse("p95"), 2))
        .isTrue();
  }

  @Test
  void simulateArgumentsRunThePolicy() {
    assertThat(everyKind().get(0).simulateArguments()).containsExactly("--policies",
        "exponential:100ms:2:20s:full+budget", "--max-attempts", "5", "--budget", "token-bucket:500:5:10");
    assertThat(everyKind().get(5).simulateArguments()).containsExactly("--policies", "aws-standard+budget",
        "--budget", "token-bucket:100:5:10");
    for (PolicyCandidate c : everyKind()) {
      Scenario scenario = Scenario.of(c.scenarioKeys());
      assertThat(scenario.policyNames()).containsExactly(c.policySpec());
    }
  }

  @Test
  void springPropertiesUseTheStartersKeys() {
    assertThat(everyKind().get(0).springProperties("payments")).containsExactly(
        Map.entry("backoff.policies.payments.strategy", "exponential:100ms:2:20s:full"),
        Map.entry("backoff.policies.payments.max-attempts", "5"),
        Map.entry("backoff.policies.payments.budget", "payments"),
        Map.entry("backoff.budgets.payments.spec", "token-bucket:500:5:10"));
    assertThat(everyKind().get(4).springProperties("x")).containsExactly(
        Map.entry("backoff.policies.x.strategy", "fixed:1.5s"), Map.entry("backoff.policies.x.max-attempts", "2"));
    assertThat(everyKind().get(7).springProperties("a")).containsExactly(
        Map.entry("backoff.policies.a.strategy", "exponential:100ms:2:20s:full"),
        Map.entry("backoff.policies.a.max-attempts", "8"), Map.entry("backoff.policies.a.rate-limiter.max-wait", "wait"));
    assertThat(everyKind().get(9).springProperties("b")).containsExactly(
        Map.entry("backoff.policies.b.strategy", "aws-standard"),
        Map.entry("backoff.policies.b.concurrency-limiter.algorithm", "aimd"));
    assertThat(everyKind().get(11).springProperties("c")).containsExactly(
        Map.entry("backoff.policies.c.strategy", "fixed:1s"), Map.entry("backoff.policies.c.max-attempts", "3"),
        Map.entry("backoff.policies.c.concurrency-limiter.algorithm", "gradient"),
        Map.entry("backoff.policies.c.hedging.delay", "150ms"), Map.entry("backoff.policies.c.hedging.max-hedges", "2"),
        Map.entry("backoff.policies.c.budget", "c"), Map.entry("backoff.budgets.c.spec", "token-bucket:500:5:10"));
    assertThat(everyKind().get(12).springProperties("d")).containsExactly(
        Map.entry("backoff.policies.d.strategy", "aws-standard"), Map.entry("backoff.policies.d.hedging.delay", "p99"),
        Map.entry("backoff.policies.d.hedging.max-extra-load", "0.1"),
        Map.entry("backoff.policies.d.hedging.window", "500"));
    assertThatThrownBy(() -> everyKind().get(0).springProperties("Not OK"))
        .hasMessage("name must be lower-case letters, digits and hyphens, was 'Not OK'");
  }

  @Test
  void refusesInvalidCandidates() {
    assertThatThrownBy(() -> candidate(Family.FULL_JITTER, "2s", 2, "1s", 3, null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cap 1s is below initial 2s");
    assertThatThrownBy(() -> candidate(Family.FIXED, "1s", 0, null, 0, null))
        .hasMessage("maxAttempts must be at least 1, was 0");
    assertThatThrownBy(() -> candidate(Family.FIXED, "1s", 0, null, null, null))
        .hasMessage("maxAttempts must be set for FIXED (only a preset has its own)");
    assertThatThrownBy(() -> candidate(Family.FIXED, "1s", 0, null, 3, "bucket"))
        .hasMessageStartingWith("unknown budget 'bucket'");
    assertThatThrownBy(() -> candidate(Family.FULL_JITTER, "1s", 2, null, 3, null)).isInstanceOf(NullPointerException.class)
        .hasMessage("cap");
  }

  /**
   * The Java code of every kind compiles against backoff-core alone (javac, in this JVM) and, run, builds the
   * policy the simulator runs: the same delays for the same random numbers, attempt limit and budget.
   */
  @Test
  void javaCodeCompilesAndBuildsTheSamePolicy(@TempDir Path directory) throws Exception {
    List<PolicyCandidate> candidates = everyKind();
    StringBuilder source = new StringBuilder();
    List<String> imports = new ArrayList<>();
    StringBuilder methods = new StringBuilder();
    for (int i = 0; i < candidates.size(); i++) {
      String code = candidates.get(i).javaCode();
      StringBuilder body = new StringBuilder();
      for (String line : code.split("\n")) {
        if (line.startsWith("import ")) {
          imports.add(line);
        } else {
          body.append("    ").append(line).append('\n');
        }
      }
      methods.append("  public static RetryPolicy<Object> policy").append(i).append("() {\n").append(body)
          .append("    return policy;\n  }\n");
    }
    imports.stream().distinct().sorted().forEach(line -> source.append(line).append('\n'));
    source.append("import dev.backoff.RetryPolicy;\n".repeat(imports.contains("import dev.backoff.RetryPolicy;") ? 0 : 1));
    source.append("\npublic class Snippets {\n").append(methods).append("}\n");
    Path file = directory.resolve("Snippets.java");
    Files.writeString(file, source);
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    StringWriter diagnostics = new StringWriter();
    boolean compiled = javac.getTask(diagnostics, null, null,
        List.of("-classpath", coreClasses().toString(), "-d", directory.toString(), "-Xlint:all", "-Werror"), null,
        javac.getStandardFileManager(null, null, null).getJavaFileObjects(file)).call();
    assertThat(compiled).as("%s\n%s", diagnostics, source).isTrue();
    try (URLClassLoader loader = new URLClassLoader(new java.net.URL[] {directory.toUri().toURL()},
        RetryPolicy.class.getClassLoader())) {
      Class<?> snippets = loader.loadClass("Snippets");
      for (int i = 0; i < candidates.size(); i++) {
        PolicyCandidate c = candidates.get(i);
        RetryPolicy<?> policy = (RetryPolicy<?>) snippets.getMethod("policy" + i).invoke(null);
        RetryPolicy<Object> simulated = PolicySpec.parse(c.policySpec(), c.maxAttempts() != null)
            .build(c.maxAttempts() == null ? Integer.MAX_VALUE : c.maxAttempts(),
                c.budget() == null ? null : BudgetSpec.parse(c.budget()).create(() -> 0L));
        assertThat(policy.maxAttempts()).as(c.label()).isEqualTo(simulated.maxAttempts());
        assertSameDelays(c.label(), policy.backoff(), simulated.backoff());
        assertThat(policy.rateLimiter() != null).as(c.label())
            .isEqualTo(c.protection() == PolicyCandidate.Protection.ADAPTIVE);
        assertThat(policy.concurrencyLimiter() != null).as(c.label())
            .isEqualTo(c.protection().id().startsWith("concurrency"));
        assertThat(String.valueOf(policy.hedging())).as(c.label()).isEqualTo(String.valueOf(simulated.hedging()));
        if (c.budget() == null) {
          assertThat(policy.budget()).as(c.label()).isNull();
        } else {
          assertThat(policy.budget()).as(c.label()).isNotNull();
          assertThat(policy.budget().getClass()).isEqualTo(simulated.budget().getClass());
          assertThat(policy.budget().level()).isEqualTo(simulated.budget().level());
        }
      }
    }
  }

  private static void assertSameDelays(String label, Backoff actual, Backoff expected) {
    SplittableRandom a = new SplittableRandom(7);
    SplittableRandom b = new SplittableRandom(7);
    long previousA = 0;
    long previousB = 0;
    long totalA = 0;
    long totalB = 0;
    for (int retry = 1; retry <= 12; retry++) {
      long delayA = actual.delayNanos(retry, previousA, totalA, a);
      long delayB = expected.delayNanos(retry, previousB, totalB, b);
      assertThat(delayA).as("%s retry %d", label, retry).isEqualTo(delayB);
      previousA = delayA;
      previousB = delayB;
      totalA += delayA;
      totalB += delayB;
    }
  }

  private static Path coreClasses() throws URISyntaxException, IOException {
    return Path.of(RetryPolicy.class.getProtectionDomain().getCodeSource().getLocation().toURI());
  }
}
