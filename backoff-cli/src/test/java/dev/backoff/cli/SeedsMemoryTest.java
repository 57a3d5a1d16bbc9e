package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.testing.ForkedJvm;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Parallel runs in a 128 MiB heap (a forked JVM): two fixed-policy storms of 14000 clients each fit one at a
 * time (about 55 MiB of the 86 MiB runs may plan for, by the estimate of 16 bytes per request a server holds)
 * but not two at once (about 111 MiB). With two threads the plan is
 * refused up front, naming the thread count that fits; with one it finishes. Never an OutOfMemoryError.
 */
@Tag("slow")
class SeedsMemoryTest {
  private static ForkedJvm.Result simulate(String threads) throws Exception {
    return ForkedJvm.run(Main.class, List.of("-Xmx128m", "-XX:+UseSerialGC"), Duration.ofSeconds(300), "simulate",
        "--clients", "14000", "--policies", "storm-fixed", "--seeds", "2", "--threads", threads, "--format", "csv");
  }

  @Test
  void twoConcurrentStormsThatDoNotFitAreRefusedAndOneAtATimeFinishes() throws Exception {
    ForkedJvm.Result two = simulate("2");
    assertThat(two.exitCode()).as(two.output()).isEqualTo(2);
    assertThat(two.output()).contains("backoff: threads: 2 runs, 2 at a time, may need about ")
        .contains("use at most 1 thread").contains("BACKOFF_JAVA_OPTS=-Xmx").doesNotContain("OutOfMemoryError");
    ForkedJvm.Result one = simulate("1");
    assertThat(one.output()).doesNotContain("OutOfMemoryError");
    assertThat(one.exitCode()).as(one.output()).isZero();
    assertThat(one.output()).contains("policy,seed,verdict,").contains("\nstorm-fixed,3,").contains("\nstorm-fixed,4,");
  }
}
