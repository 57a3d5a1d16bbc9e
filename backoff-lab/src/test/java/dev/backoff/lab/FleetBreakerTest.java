package dev.backoff.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.testing.ScriptedHttpServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Fleets with storm-protection policies against a real server on loopback: the refusals of a breaker, of an
 * adaptive limiter and of a concurrency limiter are counted, and every attempt the server saw is counted once (a retry refused after
 * its wait ends the call without an attempt of its own).
 */
class FleetBreakerTest {

  @Test
  void refusalsAreCountedAndEveryAttemptTheServerSawOnce() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(ScriptedHttpServer.Response.of(503))) {
      ClientFleet fleet = ClientFleet.builder().uri(server.uri("/api")).clients(10).think(Duration.ofMillis(20))
          .timeout(Duration.ofSeconds(5)).policy("fixed:50ms+breaker:50%:5:10m:1").start();
      FleetTotals totals;
      try {
        // The breaker opens after 5 failed calls and stays open for 10 minutes: the server's count stops
        // growing, while the fleet's refusals keep growing.
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        do {
          Thread.sleep(100);
          totals = fleet.totals();
        } while ((totals.refused() < 50 || totals.attempts() != server.requestCount()) && System.nanoTime() < deadline);
      } finally {
        fleet.close();
      }
      assertThat(totals.refused()).isGreaterThanOrEqualTo(50);
      assertThat(totals.attempts()).isEqualTo(server.requestCount());
      assertThat(totals.errors()).isEqualTo(totals.attempts());
      assertThat(totals.ok()).isZero();
      // Far fewer attempts than requests: most never reached the server.
      assertThat(totals.attempts()).isLessThan(totals.requests() / 2);
      assertThat(totals.toString()).contains(", refused by the breaker or limiter " + totals.refused() + ")");
      assertThat(new LabSample(0, totals, -1, Double.NaN, LabSample.ServerState.UNKNOWN).toJson())
          .contains("\"refused\":" + totals.refused());
    }
  }

  private static FleetTotals runUntil(ClientFleet fleet, ScriptedHttpServer server,
      java.util.function.Predicate<FleetTotals> done) throws InterruptedException {
    try {
      // Until done, at a moment when every request the fleet sent has reached the server and no other has (the
      // server's count, read again later, may already include a request sent after this reading; attempts are
      // counted when answered, so with slow answers some sent ones are always still unanswered).
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      FleetTotals totals;
      long requests;
      do {
        Thread.sleep(100);
        totals = fleet.totals();
        requests = server.requestCount();
      } while (!(done.test(totals) && totals.sent() == requests) && System.nanoTime() < deadline);
      assertThat(totals.sent()).as("requests sent by the fleet and received by the server, at once: " + totals)
          .isEqualTo(requests);
      assertThat(totals.attempts()).as("attempts answered").isLessThanOrEqualTo(totals.sent());
      return totals;
    } finally {
      fleet.close();
    }
  }

  @Test
  void anAdaptiveLimiterThatFailsFastRefusesOnceThrottled() throws Exception {
    try (ScriptedHttpServer server = new ScriptedHttpServer(ScriptedHttpServer.Response.of(429))) {
      ClientFleet fleet = ClientFleet.builder().uri(server.uri("/api")).clients(10).think(Duration.ofMillis(20))
          .timeout(Duration.ofSeconds(5)).policy("fixed:20ms+adaptive:fail").start();
      FleetTotals totals = runUntil(fleet, server, t -> t.refused() >= 50);
      assertThat(totals.refused()).isGreaterThanOrEqualTo(50);
      assertThat(totals.errors()).isEqualTo(totals.attempts());
    }
  }

  @Test
  void aFullConcurrencyLimitRefusesAndIsCounted() throws Exception {
    // Answers take 200ms: ten clients thinking 20ms keep far more than two calls wanting to be in flight.
    try (ScriptedHttpServer server = new ScriptedHttpServer(ScriptedHttpServer.Response.of(200)
        .delay(Duration.ofMillis(200)))) {
      ClientFleet fleet = ClientFleet.builder().uri(server.uri("/api")).clients(10).think(Duration.ofMillis(20))
          .timeout(Duration.ofSeconds(5)).policy("fixed:20ms+concurrency:fixed=2").start();
      FleetTotals totals = runUntil(fleet, server, t -> t.refused() >= 20 && t.ok() >= 4);
      assertThat(totals.refused()).isGreaterThanOrEqualTo(20);
      assertThat(totals.ok()).isEqualTo(totals.attempts());
    }
  }
}
