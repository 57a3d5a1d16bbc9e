package dev.backoff.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.sim.KneeLatency;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A hedging fleet against the lab server on loopback, with a slow tail (exponential service times of mean
 * 50 ms, well under the knee): hedges are sent and win, the losers are cancelled, every attempt is counted
 * once (started, then judged or cancelled), the client's sent count reconciles with what the server
 * received, and no hedge starts once the fleet is closed. Bounded: 20 clients for a few seconds.
 */
@Timeout(60)
class FleetHedgingTest {
  private static final KneeLatency FLAT_50MS = KneeLatency.of(Duration.ofMillis(50), 1000, 1.05, 15);
  /** The fleet's default attempt timeout, the experiment's. */
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  @Test
  void hedgesAgainstASlowTailAreSentWonCancelledAndCountedOnceOnBothSides() throws Exception {
    try (LabServer server = LabServer.builder().latency(FLAT_50MS).serviceDistribution("exponential").seed(7)
        .maxConnections(400).start()) {
      ClientFleet fleet = ClientFleet.builder().uri(server.apiUri()).clients(20).think(Duration.ofMillis(50))
          .timeout(TIMEOUT).policy("fixed:10ms+hedge:60ms:2").start();
      FleetTotals running;
      LabServer.Stats whileRunning;
      FleetTotals atClose;
      try {
        waitFor(fleet::totals, t -> t.hedgesWon() >= 20 && t.cancelled() >= 20 && t.requests() >= 200);
        whileRunning = waitFor(server::stats, s -> s.hungUp() > 0);
        running = fleet.totals();
      } finally {
        fleet.close();
        atClose = fleet.totals();
      }
      // While running, each attempt got its answer, or was a loser, cancelled: the server saw its client hang
      // up. The server has no fault, but a machine short of CPU can make an attempt time out or fail at any
      // timeout (at load 26, with 5 s, one attempt failed), so those are counted, not ruled out: they hang up
      // too, and are retried.
      assertThat(running.hedgesSent()).isPositive();
      assertThat(running.hedgesWon()).isBetween(20L, running.hedgesSent());
      assertThat(whileRunning.hungUp()).isPositive()
          .isLessThanOrEqualTo(running.cancelled() + running.timeouts() + running.errors());

      // Once closed, no hedge (nor any attempt) starts: the ones planned at the close never go out, while
      // the attempts in flight end (answered, or failed as the client shuts down on JDK 21+).
      FleetTotals totals = waitFor(fleet::totals, t -> t.attempts() == t.ok() + t.errors() + t.timeouts()
          + t.cancelled() && t.sent() == t.attempts() && t.succeeded() + t.failed() == t.requests());
      Thread.sleep(300); // longer than the hedging delay: a hedge planned before the close would be out by now
      FleetTotals later = fleet.totals();
      assertThat(later.sent()).isEqualTo(atClose.sent()).isEqualTo(totals.sent());
      assertThat(later.hedgesSent()).isEqualTo(atClose.hedgesSent());
      assertThat(later.attempts()).isEqualTo(atClose.attempts());

      // Every attempt ends once, judged or cancelled, and the policy's events count the attempts the sending
      // layer saw: each logical request's first attempt plus its hedges (the simulator's extra load) and
      // retries, less the requests clients were starting as the fleet closed (at most one per client: 20; the
      // close cancels a call before its first attempt is sent).
      assertThat(totals.ok() + totals.errors() + totals.timeouts() + totals.cancelled()).isEqualTo(totals.attempts());
      assertThat(totals.sent()).isEqualTo(totals.attempts());
      assertThat(totals.attempts() - totals.hedgesSent() - totals.retries())
          .isBetween(totals.requests() - 20, totals.requests());
      assertThat(fleet.latencies().count()).isEqualTo(totals.succeeded());
      assertThat(totals.answers()).isGreaterThanOrEqualTo(totals.ok()).isLessThan(totals.sent());

      // The server's side: it received what the client sent, less requests whose connection was cut before
      // their bytes left (a loser cancelled at once, an attempt timed out or aborted by the close); it answered
      // every answer the client got.
      LabServer.Stats stats = waitFor(server::stats, s -> s.concurrency() == 0);
      assertThat(stats.received()).isLessThanOrEqualTo(totals.sent());
      assertThat(totals.sent() - stats.received())
          .isLessThanOrEqualTo(totals.cancelled() + totals.errors() + totals.timeouts());
      assertThat(stats.answered()).isGreaterThanOrEqualTo(totals.answers());
      assertThat(stats.refused()).isZero();
      // The counts reach a remote client through /admin/stats.
      LabServer.Stats remote = RemoteStats.parse(stats.toJson());
      assertThat(remote.received()).isEqualTo(stats.received());
      assertThat(remote.hungUp()).isEqualTo(stats.hungUp());
    }
  }

  @Test
  void theSeriesAndLinesReportTheHedgesLikeTheSimulator() throws Exception {
    try (LabServer server = LabServer.builder().latency(FLAT_50MS).serviceDistribution("exponential").seed(11)
        .maxConnections(400).start()) {
      ClientFleet fleet = ClientFleet.builder().uri(server.apiUri()).clients(20).think(Duration.ofMillis(50))
          .timeout(TIMEOUT).policy("fixed:10ms+hedge:60ms").start();
      List<LabSample> samples;
      FleetTotals totals;
      try {
        LabRecorder recorder = new LabRecorder(fleet, ServerProbe.of(server));
        for (int second = 0; second < 3; second++) {
          Thread.sleep(1000);
          recorder.sample();
        }
        samples = recorder.samples();
        totals = recorder.totals();
      } finally {
        fleet.close();
      }
      long hedges = samples.stream().mapToLong(sample -> sample.counts().hedgesSent()).sum();
      assertThat(hedges).isPositive().isLessThanOrEqualTo(totals.hedgesSent());
      assertThat(samples).allMatch(LabSample::hedging);
      assertThat(samples.get(0).toJson()).contains("\"hedgesSent\":" + samples.get(0).counts().hedgesSent())
          .contains("\"hedgesInFlight\":" + samples.get(0).hedgesInFlight())
          .contains("\"hedgesWon\":" + samples.get(0).counts().hedgesWon());
      assertThat(LabRecorder.rateLine(samples, 0, 3)).contains(" | hedges: ").contains(" req/sec, in flight: ")
          .contains(", won: ");
      LabSummary summary = LabSummary.detect(samples, totals)
          .withP99SuccessLatency(fleet.latencies().quantileSeconds(0.99));
      assertThat(summary.hedging()).isTrue();
      assertThat(summary.hedgesSent()).isEqualTo(totals.hedgesSent());
      assertThat(summary.hedgesPerRequest()).isEqualTo((double) totals.hedgesSent() / totals.requests());
      // Every success took at least one 50 ms check of the server. No upper bound: a success may follow
      // attempts cut by the timeout, and a timer fires late on a machine short of CPU (at load 31 no request
      // succeeded within the 3 s, every attempt timing out: then there is no p99).
      if (fleet.latencies().count() > 0) {
        assertThat(summary.p99SuccessLatencySeconds()).isGreaterThanOrEqualTo(0.049);
      } else {
        assertThat(summary.p99SuccessLatencySeconds()).isNaN();
      }
      assertThat(summary.toJson()).contains("\"hedgesSent\":" + totals.hedgesSent())
          .contains("\"p99SuccessLatencySeconds\":");
      assertThat(LabReport.summaryTable("p", summary, totals)).contains("hedges:").contains(" sent, ")
          .contains("p99 latency:");
    }
  }

  /**
   * The adaptive delay ({@code +hedge:p95}) against a server whose every 20th request or so is slow: once it
   * has its warm-up latencies it leaves its initial delay (the 10 s maximum), hedges go out and win, every
   * hedge the fleet counts is one the delay let go, and those stay within the load cap: at most 5 per 100
   * first attempts. About 5 s: 20 clients, until 600 requests.
   */
  @Test
  @org.junit.jupiter.api.Tag("slow")
  void theAdaptiveDelayHedgesASlowTailWithinItsLoadCap() throws Exception {
    try (LabServer server = LabServer.builder().latency(FLAT_50MS).slowTail(0.03, Duration.ofMillis(400)).seed(3)
        .maxConnections(400).start()) {
      ClientFleet fleet = ClientFleet.builder().uri(server.apiUri()).clients(20).think(Duration.ofMillis(50))
          .timeout(TIMEOUT).policy("fixed:10ms+hedge:p95:warm-up=50:window=200").start();
      dev.backoff.AdaptiveHedgeDelay delay = fleet.hedgeDelay();
      assertThat(delay).isNotNull();
      try {
        waitFor(fleet::totals, t -> t.hedgesWon() >= 3 && t.requests() >= 600);
      } finally {
        fleet.close();
      }
      FleetTotals totals = waitFor(fleet::totals, t -> t.attempts() == t.ok() + t.errors() + t.timeouts()
          + t.cancelled() && t.succeeded() + t.failed() == t.requests());
      assertThat(delay.delay()).isLessThan(Duration.ofSeconds(10));
      assertThat(totals.hedgesSent()).isPositive().isLessThanOrEqualTo(delay.hedgesSent());
      // The cap is credited 0.05 per first attempt, and every first attempt is a logical request's.
      assertThat((double) delay.hedgesSent()).isLessThanOrEqualTo(0.05 * totals.requests());
      assertThat(LabReport.latencyAndHedgeDelayRows(fleet.latencies(), delay))
          .contains("p50 latency:", "hedge delay:", "load cap: " + delay.hedgesSent() + " hedges sent, "
              + delay.hedgesRefused() + " refused (at most 0.05 per first attempt)");
      // The JSON carries what those rows show.
      LabSummary summary = LabSummary.detect(List.of(), totals);
      assertThat(LabReport.clientJson("p", 20, summary, List.of(), fleet.latencies(), delay))
          .containsPattern("\"p50SuccessLatencySeconds\":0\\.[0-9]+,")
          .contains("\"hedgeDelay\":{\"delaySeconds\":", "\"quantile\":0.95,\"window\":200,\"hedgesSent\":"
              + delay.hedgesSent() + ",\"hedgesRefused\":" + delay.hedgesRefused() + ",\"maxExtraLoad\":0.05}");
    }
  }

  @Test
  void aFleetWithoutHedgingReportsNoHedges() {
    FleetTotals counts = new FleetTotals(3, 2, 1, 0, 1, 2, 2, 0);
    LabSample sample = new LabSample(0, counts, 5, 0.1, LabSample.ServerState.RUNNING);
    assertThat(sample.toJson()).doesNotContain("hedges");
    assertThat(LabRecorder.rateLine(List.of(sample), 0, 1)).doesNotContain("hedges");
  }

  @Test
  void theRateLineAddsTheSimulatorsHedgeSuffix() {
    FleetTotals first = new FleetTotals(12, 10, 0, 0, 0, 10, 10, 0, 0, 2, 1, 1, 12, 11);
    FleetTotals second = new FleetTotals(13, 10, 0, 0, 0, 10, 10, 0, 0, 3, 2, 1, 13, 12);
    List<LabSample> samples = List.of(
        new LabSample(0, first, 5, 0.05, LabSample.ServerState.RUNNING, true, 4),
        new LabSample(1, second, 5, 0.05, LabSample.ServerState.RUNNING, true, 2));
    assertThat(LabRecorder.rateLine(samples, 0, 2)).isEqualTo("OK: 10.00 req/sec, errors: 0.00 req/sec, "
        + "timedout: 0.00 req/sec | hedges: 2.50 req/sec, in flight: 2, won: 1.50 req/sec");
    assertThat(samples.get(1).toJson()).isEqualTo("{\"t\":1,\"goodput\":10,\"errors\":0,\"timeouts\":0,"
        + "\"attempts\":13,\"retries\":0,\"refused\":0,\"concurrency\":5,\"latencySeconds\":0.050,\"server\":\"running\","
        + "\"hedgesSent\":3,\"hedgesInFlight\":2,\"hedgesWon\":2,\"cancelled\":1,\"sent\":13,\"answers\":12}");
    assertThat(second.toString()).isEqualTo("attempts 13 (ok 10, errors 0, timeouts 0, cancelled 1), retries 0, "
        + "requests 10 (succeeded 10, failed 0), hedges 3 (won 2), sent 13, answers 12");
  }

  private static <T> T waitFor(java.util.function.Supplier<T> read, Predicate<T> done) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    T value = read.get();
    while (!done.test(value) && System.nanoTime() < deadline) {
      Thread.sleep(50);
      value = read.get();
    }
    assertThat(done.test(value)).as("reached within 20 s: %s", value).isTrue();
    return value;
  }
}
