package dev.backoff.lab;

import dev.backoff.sim.KneeLatency;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The server's rules on a fake clock: times are explicit milliseconds turned into nanos. */
class ServerCoreTest {
  private static final long MS = 1_000_000L;
  private static final long SLOT = 5 * MS;
  // Base 100 ms, knee 2, doubling every extra request: D(1..2) = 100 ms, D(3) = 200 ms, D(4) = 400 ms.
  private final KneeLatency steep = KneeLatency.of(Duration.ofMillis(100), 2, 2, 1);
  private final List<String> out = new ArrayList<>();
  private final List<String> evicted = new ArrayList<>();

  private ServerCore<String> core(int backlog, int maxConnections) {
    return new ServerCore<>(steep, SLOT, 10, backlog, maxConnections);
  }

  private List<String> tick(ServerCore<String> core, long millis) {
    out.clear();
    core.tick(millis * MS, out);
    return out;
  }

  @Test
  void answersAtTheFirstOwnCheckWhoseElapsedReachesTheDelay() {
    ServerCore<String> core = core(10, 100);
    tick(core, 0);
    core.arrive("a", 0, evicted);
    core.arrive("b", 10 * MS, evicted);
    // a checks at 50 and 100 ms: the 100 ms slot ends at 105 ms.
    assertThat(tick(core, 104)).isEmpty();
    assertThat(tick(core, 105)).containsExactly("a");
    assertThat(tick(core, 114)).isEmpty(); // b's checks: 60, 110
    assertThat(tick(core, 115)).containsExactly("b");
    assertThat(core.concurrency()).isZero();
    assertThat(core.answered()).isEqualTo(2);
  }

  @Test
  void theDelayFollowsTheLiveConcurrencyAndFallsAsRequestsFinish() {
    ServerCore<String> core = core(10, 100);
    core.arrive("a", 0, evicted);
    core.arrive("b", 0, evicted);
    core.arrive("c", 0, evicted);
    core.arrive("d", 0, evicted); // D(4) = 400 ms
    assertThat(tick(core, 400)).isEmpty();
    assertThat(core.lastDelayNanos()).isEqualTo(400 * MS);
    assertThat(tick(core, 405)).containsExactly("a", "b", "c", "d"); // each answer lowers D for the rest
    assertThat(core.peakConcurrency()).isEqualTo(4);
  }

  @Test
  void aLaterArrivalRaisesTheDelayOfRequestsAlreadyInService() {
    ServerCore<String> core = core(10, 100);
    core.arrive("a", 0, evicted);
    core.arrive("b", 0, evicted);
    tick(core, 55);
    core.arrive("c", 60 * MS, evicted); // D(3) = 200 ms now applies to a and b too
    assertThat(tick(core, 200)).isEmpty();
    assertThat(tick(core, 205)).containsExactly("a", "b");
    // c alone again, D(1) = 100 ms; its check at 160 ms saw D(3) = 200 ms, the next is at 210 ms.
    assertThat(tick(core, 214)).isEmpty();
    assertThat(tick(core, 215)).containsExactly("c");
  }

  @Test
  void eachRequestKeepsItsOwnCheckPhase() {
    ServerCore<String> core = core(10, 100);
    core.arrive("a", 0, evicted);
    core.arrive("b", 0, evicted);
    core.arrive("c", 30 * MS, evicted); // D(3) = 200 ms while all three are in service
    // c checks at 80 and 130 ms, a and b at 50, 100, 150, 200 ms.
    tick(core, 99);
    core.arrive("d", 99 * MS, evicted); // D(4) = 400 ms: nobody finishes for a while
    assertThat(tick(core, 400)).isEmpty();
    // At 405 ms a and b (checks at 400 ms) finish; c's next check is at 430 ms with D(2) = 100 ms.
    assertThat(tick(core, 405)).containsExactly("a", "b");
    assertThat(tick(core, 434)).isEmpty();
    assertThat(tick(core, 435)).containsExactly("c");
  }

  @Test
  void pauseAnswersNothingAndResumeStartsTheBacklogAtOnce() {
    ServerCore<String> core = core(2, 100);
    core.arrive("inService", 0, evicted);
    core.pause();
    core.arrive("w1", 10 * MS, evicted);
    core.arrive("w2", 20 * MS, evicted);
    core.arrive("beyond1", 30 * MS, evicted);
    core.arrive("beyond2", 40 * MS, evicted);
    assertThat(tick(core, 5_000)).isEmpty();
    assertThat(core.concurrency()).isEqualTo(1);
    assertThat(core.waiting()).isEqualTo(4);
    assertThat(core.paused()).isTrue();

    List<String> answered = new ArrayList<>();
    List<String> dropped = new ArrayList<>();
    core.resume(5_000 * MS, answered, dropped);
    // The old request checks at once: the paused time counted, it is long past D.
    assertThat(answered).containsExactly("inService");
    assertThat(dropped).containsExactly("beyond1", "beyond2");
    assertThat(core.dropped()).isEqualTo(2);
    assertThat(core.concurrency()).isEqualTo(2); // the backlog started at once
    assertThat(core.peakConcurrency()).isEqualTo(2);
    // The backlog started at 5 000 ms; D(2) = 100 ms.
    assertThat(tick(core, 5_104)).isEmpty();
    assertThat(tick(core, 5_105)).containsExactly("w1", "w2");
  }

  @Test
  void afterResumeOldRequestsCheckOnTheResumeGrid() {
    ServerCore<String> core = core(10, 100);
    for (int i = 0; i < 4; i++) {
      core.arrive("old" + i, 0, evicted); // D(4) = 400 ms
    }
    core.pause();
    core.arrive("new1", 10 * MS, evicted);
    core.arrive("new2", 20 * MS, evicted);
    List<String> answered = new ArrayList<>();
    core.resume(310 * MS, answered, new ArrayList<>()); // elapsed 310 ms < D(4): nobody answers at resume
    assertThat(answered).isEmpty();
    assertThat(core.concurrency()).isEqualTo(6); // D(6) = 1.6 s
    // The old requests now check at 310 + 50k ms, not on their first grid (1 600 ms would be on it).
    assertThat(tick(core, 1_605)).isEmpty();
    // At 1 610 ms they have 1.61 s >= D(6); then D(2) = 100 ms lets the backlog (1.3 s old) go too.
    assertThat(tick(core, 1_615)).containsExactly("old0", "old1", "old2", "old3", "new1", "new2");
  }

  @Test
  void resumeWithoutPauseChangesNothing() {
    ServerCore<String> core = core(2, 100);
    core.arrive("a", 0, evicted);
    List<String> dropped = new ArrayList<>();
    core.resume(MS, out, dropped);
    assertThat(dropped).isEmpty();
    assertThat(out).isEmpty();
    assertThat(core.concurrency()).isEqualTo(1);
  }

  @Test
  void abandonedRequestsKeepCountingUntilAnswered() {
    // The core has no way to cancel: a request counts until its delay has passed, whoever waits for it.
    ServerCore<String> core = core(10, 100);
    for (int i = 0; i < 4; i++) {
      core.arrive("r" + i, 0, evicted);
    }
    tick(core, 300);
    assertThat(core.concurrency()).isEqualTo(4);
  }

  @Test
  void refusesBeyondMaxConnectionsWhileRunning() {
    ServerCore<String> core = core(1, 2);
    assertThat(core.arrive("a", 0, evicted)).isTrue();
    assertThat(core.arrive("b", 0, evicted)).isTrue();
    assertThat(core.arrive("c", 0, evicted)).isFalse();
    assertThat(core.refused()).isEqualTo(1);
    assertThat(core.held()).isEqualTo(2);
    assertThat(evicted).isEmpty();
  }

  @Test
  void whilePausedAFullServerDropsTheOldestBeyondTheBacklog() {
    ServerCore<String> core = core(1, 3);
    core.arrive("a", 0, evicted);
    core.pause();
    core.arrive("backlog", 0, evicted);
    core.arrive("old", 0, evicted);
    assertThat(core.arrive("new", 0, evicted)).isTrue();
    assertThat(evicted).containsExactly("old");
    assertThat(core.held()).isEqualTo(3);
    assertThat(core.dropped()).isEqualTo(1);
    // The newcomer is now the oldest beyond the backlog: the next arrival replaces it.
    evicted.clear();
    assertThat(core.arrive("newer", 0, evicted)).isTrue();
    assertThat(evicted).containsExactly("new");
  }

  @Test
  void whilePausedWithNothingBeyondTheBacklogANewcomerIsRefused() {
    ServerCore<String> core = core(5, 2);
    core.arrive("a", 0, evicted);
    core.pause();
    core.arrive("b", 0, evicted);
    assertThat(core.arrive("c", 0, evicted)).isFalse();
    assertThat(evicted).isEmpty();
  }

  @Test
  void peakSinceMarkRestartsAtTheCurrentConcurrency() {
    ServerCore<String> core = core(10, 100);
    core.arrive("a", 0, evicted);
    core.arrive("b", 0, evicted);
    assertThat(core.takePeakSinceMark()).isEqualTo(2);
    tick(core, 105);
    assertThat(core.takePeakSinceMark()).isEqualTo(2);
    assertThat(core.takePeakSinceMark()).isZero();
  }

  @Test
  void drainReturnsEverythingHeld() {
    ServerCore<String> core = core(1, 10);
    core.arrive("a", 0, evicted);
    core.pause();
    core.arrive("b", 0, evicted);
    core.arrive("c", 0, evicted);
    List<String> all = new ArrayList<>();
    core.drainAll(all);
    assertThat(all).containsExactly("a", "b", "c");
    assertThat(core.held()).isZero();
  }

  @Test
  void badSettingsAreNamed() {
    assertThatThrownBy(() -> new ServerCore<String>(steep, 0, 10, 1, 1)).hasMessageContaining("slot");
    assertThatThrownBy(() -> new ServerCore<String>(steep, SLOT, 0, 1, 1)).hasMessageContaining("slotsPerCheck");
    assertThatThrownBy(() -> new ServerCore<String>(steep, SLOT, 10, 0, 1)).hasMessageContaining("backlog");
    assertThatThrownBy(() -> new ServerCore<String>(steep, SLOT, 10, 1, 0)).hasMessageContaining("maxConnections");
  }

  @Test
  void clockReadingsMayWrap() {
    ServerCore<String> core = core(10, 100);
    long start = Long.MAX_VALUE - 22 * MS; // not on a slot boundary
    core.tick(start, out);
    core.arrive("a", start, evicted);
    out.clear();
    core.tick(start + 90 * MS, out);
    assertThat(out).isEmpty();
    core.tick(start + 110 * MS, out);
    assertThat(out).containsExactly("a");
  }

  @Test
  void aHungUpClientsRequestKeepsCountingAndIsAnsweredWhenTheModelSays() {
    ServerCore<String> core = core(10, 100);
    core.arrive("a", 0, evicted);
    core.arrive("b", 0, evicted);
    core.arrive("c", 0, evicted); // D(3) = 200 ms
    core.abandon("a");
    core.abandon("a"); // twice is once
    core.abandon("unknown");
    assertThat(core.abandoned()).isEqualTo(1);
    assertThat(core.concurrency()).isEqualTo(3);
    assertThat(tick(core, 200)).isEmpty(); // a still raises D for the others
    assertThat(tick(core, 205)).containsExactly("a", "b", "c");
    assertThat(core.abandoned()).isZero();
    assertThat(core.answered()).isEqualTo(3);
    core.abandon("a"); // answered already: nothing to do
    assertThat(core.abandoned()).isZero();
  }

  @Test
  void aFullServerForgetsTheRequestAbandonedFirstInsteadOfRefusing() {
    ServerCore<String> core = core(10, 3);
    core.arrive("a", 0, evicted);
    core.arrive("b", 0, evicted);
    core.arrive("c", 0, evicted);
    assertThat(core.arrive("refused", 0, evicted)).isFalse(); // nobody has hung up: 503 as before
    core.abandon("c");
    core.abandon("b");
    assertThat(core.arrive("d", 10 * MS, evicted)).isTrue();
    assertThat(evicted).isEmpty(); // its connection is closed already
    assertThat(core.forgotten()).isEqualTo(1);
    assertThat(core.concurrency()).isEqualTo(3);
    assertThat(core.abandoned()).isEqualTo(1);
    assertThat(core.refused()).isEqualTo(1);
    // D(3) = 200 ms: a and b at 205 ms (c is not answered: forgotten), d on its own grid at 215 ms.
    assertThat(tick(core, 205)).containsExactly("a", "b");
    assertThat(tick(core, 215)).containsExactly("d");
    assertThat(core.concurrency()).isZero();
    assertThat(core.held()).isZero();
  }

  @Test
  void forgottenEntriesDoNotPileUpWhenTheModelNeverAnswers() {
    // D(3) is beyond any run: a storm at the cap, each newcomer hanging up in turn.
    ServerCore<String> core = new ServerCore<>(KneeLatency.of(Duration.ofMillis(100), 2, 1e9, 0.001), SLOT, 10,
        10, 3);
    for (int i = 0; i < 3; i++) {
      core.arrive("r" + i, 0, evicted);
      core.abandon("r" + i);
    }
    for (int i = 3; i < 1_003; i++) {
      assertThat(core.arrive("r" + i, i * MS, evicted)).isTrue();
      core.abandon("r" + i);
      assertThat(core.concurrency()).isEqualTo(3);
      assertThat(core.abandoned()).isEqualTo(3);
      assertThat(tick(core, i * MS)).isEmpty();
    }
    assertThat(core.forgotten()).isEqualTo(1_000);
    assertThat(core.entriesInQueues()).isLessThanOrEqualTo(3 + 65);
  }

  @Test
  void resetForgetsEverythingHeldAndKeepsThePause() {
    ServerCore<String> core = core(1, 100);
    core.arrive("a", 0, evicted);
    core.abandon("a");
    core.arrive("b", 0, evicted);
    core.pause();
    core.arrive("waiting", 0, evicted);
    core.arrive("beyond", 0, evicted);
    List<String> forgotten = new ArrayList<>();
    core.reset(forgotten);
    assertThat(forgotten).containsExactlyInAnyOrder("a", "b", "waiting", "beyond");
    assertThat(core.concurrency()).isZero();
    assertThat(core.waiting()).isZero();
    assertThat(core.abandoned()).isZero();
    assertThat(core.forgotten()).isEqualTo(4);
    assertThat(core.paused()).isTrue();
    List<String> answered = new ArrayList<>();
    core.resume(MS, answered, new ArrayList<>());
    assertThat(answered).isEmpty();
  }

  @Test
  void aRequestAbandonedWhileWaitingStartsAtResumeAndCanBeForgotten() {
    ServerCore<String> core = core(10, 2);
    core.pause();
    core.arrive("w", 0, evicted);
    core.abandon("w");
    core.resume(100 * MS, new ArrayList<>(), new ArrayList<>());
    assertThat(core.concurrency()).isEqualTo(1);
    assertThat(core.abandoned()).isEqualTo(1);
    core.arrive("x", 100 * MS, evicted);
    assertThat(core.arrive("y", 100 * MS, evicted)).isTrue(); // w made room
    assertThat(core.forgotten()).isEqualTo(1);
    assertThat(core.abandoned()).isZero();
  }

  @Test
  void withServiceFactorsEachRequestTakesItsOwnMultipleOfTheDelayAndAnswersOutOfOrder() {
    // A flat model, D = 100 ms at any concurrency here; factors 0.5, 3, 1 and 0 in arrival order.
    KneeLatency flat = KneeLatency.of(Duration.ofMillis(100), 1000, 2, 1);
    double[] factors = {0.5, 3, 1, 0};
    int[] next = {0};
    ServerCore<String> core = new ServerCore<>(flat, SLOT, 10, 10, 100, () -> factors[next[0]++]);
    tick(core, 0);
    core.arrive("a", 0, evicted);
    core.arrive("b", 0, evicted);
    core.arrive("c", 0, evicted);
    core.arrive("d", 0, evicted);
    assertThat(core.received()).isEqualTo(4);
    // Checks at 50, 100, 150, ... ms; a slot's checks are done once it has ended (5 ms later).
    assertThat(tick(core, 54)).isEmpty();
    assertThat(tick(core, 55)).containsExactly("a", "d"); // 50 ms: a's 50 ms and d's 0 have elapsed
    assertThat(tick(core, 104)).isEmpty();
    assertThat(tick(core, 105)).containsExactly("c"); // 100 ms
    assertThat(tick(core, 304)).isEmpty();
    assertThat(tick(core, 305)).containsExactly("b"); // 300 ms
    assertThat(core.concurrency()).isZero();
    assertThat(core.answered()).isEqualTo(4);
  }

  @Test
  void withServiceFactorsAPauseStillHoldsEveryRequestAndTheResumeChecksThemAtOnce() {
    KneeLatency flat = KneeLatency.of(Duration.ofMillis(100), 1000, 2, 1);
    double[] factors = {2, 0.5};
    int[] next = {0};
    ServerCore<String> core = new ServerCore<>(flat, SLOT, 10, 10, 100, () -> factors[next[0]++]);
    tick(core, 0);
    core.arrive("slow", 0, evicted); // 200 ms
    core.arrive("fast", 0, evicted); // 50 ms
    core.pause();
    assertThat(tick(core, 150)).isEmpty();
    List<String> dropped = new ArrayList<>();
    out.clear();
    core.resume(150 * MS, out, dropped);
    assertThat(out).containsExactly("fast"); // its 50 ms have long passed; slow's 200 ms have not
    assertThat(tick(core, 204)).isEmpty();
    assertThat(tick(core, 205)).containsExactly("slow"); // the resume's grid: 150, 200 ms
  }

  @Test
  void aServiceFactorThatIsNotAFiniteNonNegativeNumberIsABug() {
    KneeLatency flat = KneeLatency.of(Duration.ofMillis(100), 1000, 2, 1);
    ServerCore<String> core = new ServerCore<>(flat, SLOT, 10, 10, 100, () -> -1);
    assertThatThrownBy(() -> core.arrive("a", 0, evicted)).isInstanceOf(IllegalStateException.class)
        .hasMessage("service factor must be finite and not negative, was -1.0");
    assertThat(core.held()).isZero();
  }

  @Test
  void everyArrivalIsReceivedWhetherHeldOrRefused() {
    ServerCore<String> core = core(10, 2);
    core.arrive("a", 0, evicted);
    core.arrive("b", 0, evicted);
    assertThat(core.arrive("c", 0, evicted)).isFalse();
    assertThat(core.received()).isEqualTo(3);
    assertThat(core.refused()).isEqualTo(1);
  }
}
