package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Exact small cases of each server model, in virtual time. */
class ServerModelTest {
  private static final long MS = 1_000_000L;

  /** A run with no clients started: the test submits attempts itself between steps of the event loop. */
  private static final class Harness {
    final Simulation simulation;
    long now;

    Harness(Map<String, ?> values) {
      Scenario scenario = Scenario.of(Map.of("policies", "none", "max-attempts", 1, "faults", "none", "duration", "60s"))
          .with(values);
      simulation = new Simulation(scenario, scenario.policies.get(0));
    }

    Attempt submitAt(long atMillis) {
      advanceTo(atMillis);
      Attempt attempt = new Attempt(new Caller(new SplitMix64(1), false), now);
      attempt.caller.callStartNanos = now;
      attempt.caller.newCall = false;
      simulation.server.submit(attempt, now);
      return attempt;
    }

    void advanceTo(long millis) {
      simulation.loop(millis * MS, null);
      now = millis * MS;
    }

    Server server() {
      return simulation.server;
    }
  }

  private static long answeredMillis(Attempt attempt) {
    return attempt.answeredNanos < 0 ? -1 : attempt.answeredNanos / MS;
  }

  @Test
  void kneeServerAnswersAtBaseLatencyBelowTheKnee() {
    Harness h = new Harness(Map.of());
    Attempt a = h.submitAt(0);
    Attempt b = h.submitAt(0);
    Attempt c = h.submitAt(30);
    h.advanceTo(1000);
    assertThat(answeredMillis(a)).isEqualTo(100);
    assertThat(answeredMillis(b)).isEqualTo(100);
    assertThat(answeredMillis(c)).isEqualTo(130);
    assertThat(a.outcome).isEqualTo(Server.OK);
  }

  @Test
  void kneeLatencyFollowsTheFormula() {
    Harness h = new Harness(Map.of());
    CurveServer server = (CurveServer) h.server();
    assertThat(server.latencyAt(30)).isEqualTo(100 * MS);
    // D(c) = 100 ms · 1.05^((c − 30)/15): D(951) ≈ 2 s, D(1040) ≈ 2.67 s, D(1599) ≈ 16.46 s (the seed's readings).
    assertThat(server.latencyAt(951) / 1e9).isCloseTo(2.0, org.assertj.core.data.Offset.offset(0.02));
    assertThat(server.latencyAt(1040) / 1e9).isCloseTo(2.671, org.assertj.core.data.Offset.offset(0.01));
    assertThat(server.latencyAt(1599) / 1e9).isCloseTo(16.459, org.assertj.core.data.Offset.offset(0.05));
    assertThat(server.latencyAt(45)).isEqualTo(105 * MS);
  }

  @Test
  void aRequestInServiceIsReEvaluatedWhenConcurrencyChanges() {
    // Knee at 0, factor 2 per request: D(1) = 200 ms, D(2) = 400 ms.
    Harness h = new Harness(Map.of("knee-limit", 0, "knee-factor", 2, "knee-k", 1));
    Attempt a = h.submitAt(0); // due at 200 ms while alone
    Attempt b = h.submitAt(100); // now c = 2: a is due at 400 ms
    h.advanceTo(1000);
    assertThat(answeredMillis(a)).isEqualTo(400);
    // When a leaves, c = 1 and D = 200 ms: b has been in service 300 ms and completes at the same instant.
    assertThat(answeredMillis(b)).isEqualTo(400);
  }

  @Test
  void concurrencyDroppingBeforeTheDueTimeBringsCompletionForward() {
    Harness h = new Harness(Map.of("knee-limit", 0, "knee-factor", 2, "knee-k", 1));
    Attempt a = h.submitAt(0); // alone: 200 ms
    h.advanceTo(250);
    Attempt b = h.submitAt(300); // alone again: 500 ms
    Attempt c = h.submitAt(350); // c = 2: b due at 300 + 400 = 700
    h.advanceTo(2000);
    assertThat(answeredMillis(a)).isEqualTo(200);
    assertThat(answeredMillis(b)).isEqualTo(700);
    // c is alone from 700: D(1) = 200 ms, elapsed 350 ms: completes at once.
    assertThat(answeredMillis(c)).isEqualTo(700);
  }

  @Test
  void abandonedRequestsKeepOccupyingTheServer() {
    Harness h = new Harness(Map.of("knee-limit", 0, "knee-factor", 2, "knee-k", 1));
    Attempt abandoned = h.submitAt(0);
    abandoned.state = Attempt.TIMED_OUT; // its client gave up
    Attempt b = h.submitAt(0);
    h.advanceTo(1000);
    assertThat(answeredMillis(abandoned)).isEqualTo(400);
    assertThat(answeredMillis(b)).isEqualTo(400); // it waited as if both were wanted
  }

  @Test
  void pollingModeCompletesOnTheFirstCheckPastTheLatency() {
    Harness h = new Harness(Map.of("recheck", "50ms", "base-latency", "120ms"));
    Attempt a = h.submitAt(0);
    Attempt b = h.submitAt(10);
    h.advanceTo(1000);
    assertThat(answeredMillis(a)).isEqualTo(150);
    assertThat(answeredMillis(b)).isEqualTo(160);
  }

  @Test
  void pollingModeAtTheExactLatencyCompletesOnThatTick() {
    Harness h = new Harness(Map.of("recheck", "50ms"));
    Attempt a = h.submitAt(0);
    h.advanceTo(1000);
    assertThat(answeredMillis(a)).isEqualTo(100);
  }

  @Test
  void linearServerAddsLatencyPerConcurrentRequest() {
    Harness h = new Harness(Map.of("server", "linear", "latency-per-request", "10ms"));
    Attempt a = h.submitAt(0);
    Attempt b = h.submitAt(0);
    h.advanceTo(1000);
    // D(2) = 120 ms; then D(1) = 110 ms < 120 ms elapsed.
    assertThat(answeredMillis(a)).isEqualTo(120);
    assertThat(answeredMillis(b)).isEqualTo(120);
  }

  @Test
  void pausedServerHoldsConnectionsInTheBacklogAndStartsThemAtOnceOnResume() {
    Harness h = new Harness(Map.of("backlog", 2));
    Attempt inService = h.submitAt(0);
    h.advanceTo(50);
    h.server().pause(h.now);
    Attempt first = h.submitAt(100);
    Attempt second = h.submitAt(200);
    Attempt dropped = h.submitAt(300); // the accept queue is full
    h.advanceTo(1000);
    h.server().resume(h.now);
    assertThat(h.server().concurrency()).isEqualTo(2); // the one in service left at once, elapsed 1 s
    h.advanceTo(5000);
    assertThat(answeredMillis(inService)).isEqualTo(1000);
    assertThat(answeredMillis(first)).isEqualTo(1100);
    assertThat(answeredMillis(second)).isEqualTo(1100);
    assertThat(answeredMillis(dropped)).isEqualTo(-1);
  }

  @Test
  void withPauseOverflowReconnectTheRequestsBeyondTheBacklogWhoseClientsStillWaitAreServedOnResume() {
    Harness h = new Harness(Map.of("backlog", 1, "pause-overflow", "reconnect"));
    h.server().pause(0);
    Attempt inBacklog = h.submitAt(100);
    Attempt gaveUp = h.submitAt(200); // beyond the backlog, and its client times out before the resume
    Attempt waiting = h.submitAt(300); // beyond the backlog, its client still waiting at the resume
    gaveUp.state = Attempt.TIMED_OUT;
    h.advanceTo(1000);
    h.server().resume(h.now);
    assertThat(h.server().concurrency()).isEqualTo(2); // the backlog's one and the one sent again
    // The HTTP client's resend is a new exchange with its own timeout: the old attempt is void.
    assertThat(waiting.state).isEqualTo(Attempt.ABANDONED);
    h.advanceTo(5000);
    assertThat(answeredMillis(inBacklog)).isEqualTo(1100);
    assertThat(answeredMillis(waiting)).isEqualTo(-1);
    assertThat(h.server().concurrency()).isZero(); // both served at 1100
    assertThat(answeredMillis(gaveUp)).isEqualTo(-1); // nobody waits for it: not served, no load
  }

  @Test
  void withPauseOverflowCloseTheRequestsBeyondTheBacklogWhoseClientsStillWaitFailOnResume() {
    Harness h = new Harness(Map.of("backlog", 1, "pause-overflow", "close"));
    h.server().pause(0);
    Attempt inBacklog = h.submitAt(100);
    Attempt gaveUp = h.submitAt(200);
    Attempt waiting = h.submitAt(300);
    gaveUp.state = Attempt.TIMED_OUT;
    h.advanceTo(1000);
    h.server().resume(h.now);
    assertThat(h.server().concurrency()).isEqualTo(1); // only the backlog's one
    h.advanceTo(5000);
    assertThat(answeredMillis(inBacklog)).isEqualTo(1100);
    assertThat(waiting.outcome).isEqualTo(Server.ERROR);
    assertThat(answeredMillis(waiting)).isEqualTo(1001); // the close reaches the client after the error latency
    assertThat(answeredMillis(gaveUp)).isEqualTo(-1);
  }

  @Test
  void withTheDefaultPauseOverflowTheRequestsBeyondTheBacklogAreNeverAnswered() {
    Harness h = new Harness(Map.of("backlog", 1));
    h.server().pause(0);
    h.submitAt(100);
    Attempt waiting = h.submitAt(300);
    h.advanceTo(1000);
    h.server().resume(h.now);
    h.advanceTo(5000);
    assertThat(answeredMillis(waiting)).isEqualTo(-1);
    assertThat(waiting.state).isEqualTo(Attempt.PENDING);
  }

  @Test
  void pauseOverflowAcceptsOnlyDropCloseOrReconnect() {
    assertThat(Scenario.of(Map.of("pause-overflow", "drop")).raw).containsEntry("pause-overflow", "drop");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Scenario.of(Map.of("pause-overflow", "retry")))
        .isInstanceOf(ScenarioException.class).hasMessageContaining("pause-overflow").hasMessageContaining("retry");
  }

  @Test
  void crashedServerFailsRequestsInFlightAndRefusesNewOnes() {
    Harness h = new Harness(Map.of());
    Attempt inFlight = h.submitAt(0);
    h.advanceTo(50);
    h.server().crash(h.now);
    Attempt refused = h.submitAt(60);
    h.advanceTo(500);
    h.server().restart(h.now);
    Attempt after = h.submitAt(600);
    h.advanceTo(2000);
    // Errors reach the client after the error latency (1 ms).
    assertThat(inFlight.outcome).isEqualTo(Server.ERROR);
    assertThat(answeredMillis(inFlight)).isEqualTo(51);
    assertThat(refused.outcome).isEqualTo(Server.ERROR);
    assertThat(answeredMillis(refused)).isEqualTo(61);
    assertThat(answeredMillis(after)).isEqualTo(700);
    assertThat(after.outcome).isEqualTo(Server.OK);
  }

  @Test
  void crashFailsRequestsInServiceInPollingModeAndInThePool() {
    for (Map<String, ?> model : java.util.List.of(Map.of("recheck", "50ms"),
        Map.of("server", "pool", "workers", 1, "queue-size", 5))) {
      Harness h = new Harness(model);
      Attempt served = h.submitAt(0);
      Attempt queuedOrServed = h.submitAt(0);
      h.advanceTo(50);
      h.server().crash(h.now);
      h.advanceTo(1000);
      assertThat(served.outcome).as(model.toString()).isEqualTo(Server.ERROR);
      assertThat(answeredMillis(served)).isEqualTo(51);
      assertThat(queuedOrServed.outcome).isEqualTo(Server.ERROR);
      assertThat(h.server().concurrency()).isZero();
    }
  }

  @Test
  void latencyFaultAddsToEveryRequest() {
    Harness h = new Harness(Map.of());
    h.server().setAddedLatency(200 * MS, 0);
    Attempt a = h.submitAt(0);
    h.advanceTo(100);
    h.server().setAddedLatency(0, h.now); // the fault ends: a is due at once... at 100 ms elapsed = D
    h.advanceTo(1000);
    assertThat(answeredMillis(a)).isEqualTo(100);
  }

  @Test
  void capacityFaultMakesTheKneeServerBehaveAsIfConcurrencyWereHigher() {
    Harness h = new Harness(Map.of("knee-limit", 0, "knee-factor", 2, "knee-k", 1));
    h.server().setCapacity(0.5, 0);
    Attempt a = h.submitAt(0); // c = 1 behaves as c = 2: 400 ms
    h.advanceTo(1000);
    assertThat(answeredMillis(a)).isEqualTo(400);
  }

  @Test
  void fifoPoolServesInOrderAndShedsWhenTheQueueIsFull() {
    Harness h = new Harness(Map.of("server", "pool", "workers", 1, "queue-size", 1, "retry-after", "2s"));
    Attempt a = h.submitAt(0);
    Attempt b = h.submitAt(0);
    Attempt c = h.submitAt(0);
    h.advanceTo(1000);
    assertThat(answeredMillis(a)).isEqualTo(100);
    assertThat(answeredMillis(b)).isEqualTo(200);
    assertThat(answeredMillis(c)).isEqualTo(1); // shed at once, known after the 1 ms error latency
    assertThat(c.outcome).isEqualTo(Server.REJECTED);
  }

  @Test
  void lifoPoolServesTheNewestFirst() {
    Harness h = new Harness(Map.of("server", "pool", "workers", 1, "queue-size", 2, "queue-order", "lifo"));
    Attempt a = h.submitAt(0);
    Attempt b = h.submitAt(0);
    Attempt c = h.submitAt(0);
    h.advanceTo(1000);
    assertThat(answeredMillis(a)).isEqualTo(100);
    assertThat(answeredMillis(c)).isEqualTo(200);
    assertThat(answeredMillis(b)).isEqualTo(300);
  }

  @Test
  void poolCapacityFaultRemovesWorkers() {
    Harness h = new Harness(Map.of("server", "pool", "workers", 2, "queue-size", 10));
    h.server().setCapacity(0.5, 0);
    Attempt a = h.submitAt(0);
    Attempt b = h.submitAt(0);
    h.advanceTo(1000);
    assertThat(answeredMillis(a)).isEqualTo(100);
    assertThat(answeredMillis(b)).isEqualTo(200);
  }

  @Test
  void pausedPoolFinishesWorkInProgressAtResume() {
    Harness h = new Harness(Map.of("server", "pool", "workers", 1, "queue-size", 10));
    Attempt a = h.submitAt(0);
    Attempt b = h.submitAt(0);
    h.advanceTo(50);
    h.server().pause(h.now);
    h.advanceTo(500);
    h.server().resume(h.now);
    h.advanceTo(2000);
    assertThat(answeredMillis(a)).isEqualTo(500);
    assertThat(answeredMillis(b)).isEqualTo(600);
  }
}
