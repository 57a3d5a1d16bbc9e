package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.backoff.driver.Engine;
import dev.backoff.driver.Verdict;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Execution#onResult(Object, StopReason, long)}: a driver stops on a result the policy would retry. */
class ExecutionStopOnResultTest {
  final List<String> events = new ArrayList<>();
  final RetryPolicy<Integer> policy = RetryPolicy.<Integer>builder()
      .retryOnResult(status -> status == 503)
      .classifyResults(status -> FailureClass.THROTTLED)
      .listener(new RetryListener<>() {
        @Override
        public void onSuccess(RetryEvent<Integer> event) {
          events.add("success " + event.result());
        }

        @Override
        public void onAborted(RetryEvent<Integer> event) {
          events.add("aborted " + event.result() + " " + event.stopReason() + " " + event.failureClass());
        }
      })
      .build();

  @Test
  void retryableResultStopsWithTheDriversReason() {
    Execution<Integer> execution = policy.newExecution(0);

    Decision decision = Engine.record(execution, 503, null, Verdict.stop(StopReason.NOT_RETRYABLE), 5);

    assertThat(decision.isStop()).isTrue();
    assertThat(decision.stopReason()).isEqualTo(StopReason.NOT_RETRYABLE);
    assertThat(execution.attempts()).isEqualTo(1);
    assertThat(execution.lastResult()).isEqualTo(503);
    assertThat(execution.finalFailure()).isNull();
    assertThat(execution.isDone()).isTrue();
    assertThat(events).containsExactly("aborted 503 NOT_RETRYABLE throttled");
  }

  @Test
  void acceptedResultIsASuccessAsUsual() {
    Execution<Integer> execution = policy.newExecution(0);

    assertThat(Engine.record(execution, 200, null, Verdict.ACCEPT, 5).isSuccess()).isTrue();
    assertThat(events).containsExactly("success 200");
  }

  @Test
  void aFailureCannotBeAccepted() {
    Execution<Integer> execution = policy.newExecution(0);
    assertThatThrownBy(() -> Engine.record(execution, null, new IllegalStateException("x"), Verdict.ACCEPT, 5))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cannot be accepted");
  }

  @Test
  void reasonIsRequiredAndAnEndedCallRejectsMoreOutcomes() {
    Execution<Integer> execution = policy.newExecution(0);
    assertThatThrownBy(() -> Engine.record(execution, 503, null, Verdict.stop(null), 5))
        .isInstanceOf(NullPointerException.class).hasMessage("reason must not be null");
    Engine.record(execution, 503, null, Verdict.stop(StopReason.NOT_RETRYABLE), 5);
    assertThatThrownBy(() -> Engine.record(execution, 503, null, Verdict.stop(StopReason.NOT_RETRYABLE), 6))
        .isInstanceOf(IllegalStateException.class);
  }
}
