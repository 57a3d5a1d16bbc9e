package dev.backoff.sim;

import static java.time.Duration.ofMillis;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.Backoff;
import dev.backoff.RetryPolicy;
import dev.backoff.StopReason;
import dev.backoff.sim.SimulatedCall.Answer;
import dev.backoff.testing.FakeClock;
import dev.backoff.testing.RecordingListener;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The seam through which the conformance matrix drives the simulator ({@link SimulatedCall}): what the matrix's
 * rows do not reach (a status-like rejection with the server's pushback, an answer's latency) and what it
 * refuses. Each attempt's start is read from the simulation's clock when the attempt reaches the server.
 */
class SimulatedCallTest {
  private final SimulatedCall call = new SimulatedCall();
  private final List<Duration> arrivals = new ArrayList<>();

  /** At most 3 attempts, 100 ms apart; IOException and TimeoutException retried, the result "busy" too. */
  private RetryPolicy<Object> policy(RecordingListener<Object> listener) {
    return RetryPolicy.<Object>builder().name("seam").maxAttempts(3).backoff(Backoff.fixed(ofMillis(100)))
        .retryOn(IOException.class, TimeoutException.class).retryOnResult("busy"::equals)
        .listener(listener).clock(call.clock()).build();
  }

  /** Answers attempt n with {@code answers[n - 1]} (the last repeats), recording when it arrived. */
  private SimulatedCall.Script script(Answer... answers) {
    return attempt -> {
      arrivals.add(Duration.ofNanos(call.clock().nanoTime()));
      return answers[Math.min(attempt, answers.length) - 1];
    };
  }

  @Test
  void aRejectionCarriesTheServersPushbackAndALatencyDelaysTheAnswer() {
    RecordingListener<Object> listener = new RecordingListener<>();
    // Attempt 1 is rejected after 20 ms asking for 500 ms (more than the 100 ms backoff): attempt 2 starts at
    // 520 ms and is answered "ok" 30 ms later.
    SimulatedCall.Ending end = call.run(policy(listener), null, script(
        Answer.rejected(new IOException("503"), ofMillis(500)).after(ofMillis(20)),
        Answer.value("ok").after(ofMillis(30))), null);

    assertThat(arrivals).containsExactly(Duration.ZERO, ofMillis(520));
    assertThat(end.result()).isEqualTo("ok");
    assertThat(end.reason()).isNull();
    assertThat(end.at()).isEqualTo(ofMillis(550));
    assertThat(listener.summary()).containsExactly("retry 1 in PT0.5S", "success 2 ok");
  }

  @Test
  void aRetriedResultIsHeldAndDeliveredWhenTheAttemptsRunOut() {
    SimulatedCall.Ending end = call.run(policy(new RecordingListener<>()), null, script(Answer.value("busy")), null);

    assertThat(arrivals).containsExactly(Duration.ZERO, ofMillis(100), ofMillis(200));
    assertThat(end.result()).isEqualTo("busy");
    assertThat(end.failure()).isNull();
    assertThat(end.reason()).isEqualTo(StopReason.ATTEMPTS_EXHAUSTED);
  }

  @Test
  void anAttemptThatNeverAnswersIsTimedOutByThePolicysAttemptTimeoutAndAbandoned() {
    RetryPolicy<Object> policy = policy(new RecordingListener<>()).toBuilder().attemptTimeout(ofMillis(250)).build();
    SimulatedCall.Ending end = call.run(policy, null, script(Answer.never(), Answer.value("ok")), null);

    assertThat(arrivals).containsExactly(Duration.ZERO, ofMillis(350));
    assertThat(end.result()).isEqualTo("ok");
    assertThat(end.neverAnsweredAbandoned()).isEqualTo(1);
  }

  @Test
  void theCallerStoppingTheCallAbandonsItsAttemptInFlight() {
    RecordingListener<Object> listener = new RecordingListener<>();
    SimulatedCall.Ending end = call.run(policy(listener), null,
        script(Answer.failure(new IOException("reset")), Answer.never()), ofMillis(150));

    assertThat(arrivals).containsExactly(Duration.ZERO, ofMillis(100));
    assertThat(end.reason()).isEqualTo(StopReason.CANCELLED);
    assertThat(end.at()).isEqualTo(ofMillis(150));
    assertThat(end.neverAnsweredAbandoned()).isEqualTo(1);
    assertThat(listener.stopReasons()).containsExactly(StopReason.CANCELLED);
  }

  @Test
  void aRecoveryOrAPolicyOnAnotherClockIsRefusedBeforeAnyAttempt() {
    RetryPolicy<Object> policy = policy(new RecordingListener<>());
    assertThatThrownBy(() -> call.run(policy, (result, failure, history) -> "fallback", script(Answer.value("ok")),
        null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot apply a recovery");
    RetryPolicy<Object> elsewhere = policy.toBuilder().clock(new FakeClock()).build();
    assertThatThrownBy(() -> call.run(elsewhere, null, script(Answer.value("ok")), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("policy 'seam' must read the simulation's clock");
    assertThat(arrivals).isEmpty();
  }
}
