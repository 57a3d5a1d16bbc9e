package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A call that succeeds after failures: its success event and state carry the success, not the old failure. */
class ExecutionSuccessAfterFailureTest {
  @Test
  void theSuccessEventHasNoFailure() {
    List<RetryEvent<String>> successes = new ArrayList<>();
    RetryPolicy<String> policy = RetryPolicy.<String>builder().backoff(Backoff.none())
        .listener(new RetryListener<>() {
          @Override
          public void onSuccess(RetryEvent<String> event) {
            successes.add(event);
          }
        })
        .build();
    Execution<String> execution = policy.newExecution(0);
    assertThat(execution.onFailure(new IOException("timed out"), 1).isRetry()).isTrue();
    assertThat(execution.onResult("ok", 2).isSuccess()).isTrue();
    assertThat(successes).hasSize(1);
    assertThat(successes.get(0).result()).isEqualTo("ok");
    assertThat(successes.get(0).failure()).isNull();
    assertThat(execution.lastFailure()).isNull();
    assertThat(execution.lastResult()).isEqualTo("ok");
  }
}
