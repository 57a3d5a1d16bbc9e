package dev.backoff.lab;

import dev.backoff.sim.KneeLatency;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The retry-storm experiment, scaled down to run in seconds over loopback: a small fleet against a server whose
 * knee is steep enough that the fleet can push it over, paused briefly. Fixed retries must make a larger,
 * longer storm than jittered exponential backoff. Only robust comparisons are asserted (peak concurrency,
 * goodput after the resume), never timings, so a loaded machine cannot flip the outcome. The goodput margin is
 * the one a starved machine narrows (its fixed clients, short of CPU, fire their retries late and storm
 * less): with four builds beside it on two cores one run kept 0.55 of exponential's goodput after the resume, where
 * runs with the machine to themselves keep about 0, so the bound is 0.7: still "clearly worse".
 */
@Tag("slow")
class LabStormEndToEndTest {

  @Test
  @Timeout(120)
  void fixedRetriesStormWhileJitteredExponentialBackoffRecovers() throws Exception {
    // 300 clients thinking 3 s: ~100 requests/s, ~10 concurrent at 100 ms (below the knee at 30). The
    // latency passes the 1 s timeout at ~150 concurrent requests. After 12 s paused, about 90% of the
    // fixed clients have an attempt waiting when the server resumes (~270), far past that; exponential
    // backoff has three quarters of its clients asleep by then (~75).
    LabDemo demo = LabDemo.builder()
        .clients(300)
        .think(Duration.ofSeconds(3))
        .timeout(Duration.ofSeconds(1))
        .latency(KneeLatency.of(Duration.ofMillis(100), 30, 1.05, 2.5))
        .backlog(16)
        .maxConnections(600) // with 300 clients, fits under ulimit -n 1024
        .warmup(Duration.ofSeconds(3))
        .pause(Duration.ofSeconds(12))
        .after(Duration.ofSeconds(5))
        .policies(List.of("storm-fixed", "storm-exponential"))
        .build();
    List<LabDemo.Result> results = demo.run(line -> System.out.println("[lab e2e] " + line));
    LabSummary fixed = results.get(0).summary();
    LabSummary exponential = results.get(1).summary();
    System.out.println("[lab e2e] fixed " + fixed + "\n[lab e2e] exponential " + exponential);

    // Both ran steady before the pause.
    assertThat(fixed.baselineGoodput()).isGreaterThan(40);
    assertThat(exponential.baselineGoodput()).isGreaterThan(40);
    // The storm: far more requests piled up on the server with fixed retries...
    assertThat(fixed.peakConcurrency()).isGreaterThan(2 * exponential.peakConcurrency());
    assertThat(fixed.peakConcurrency()).isGreaterThan(demo.latency().concurrencyAbove(demo.timeout()));
    // ...and they kept it from answering in time after the resume, while backoff let it serve again.
    assertThat(fixed.goodputAfterFault()).isLessThan(0.7 * exponential.goodputAfterFault());
    assertThat(exponential.goodputAfterFault()).isGreaterThan(0.3 * exponential.baselineGoodput());
    // Fixed retries also cost more attempts per request.
    assertThat(fixed.amplification()).isGreaterThan(exponential.amplification());
  }
}
