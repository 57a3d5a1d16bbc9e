package dev.backoff;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** What the final failure carries when exception instances are thrown more than once. */
class ExecutionSuppressedTest {
  private static RetryPolicy<String> policy(int maxAttempts) {
    return RetryPolicy.<String>builder().maxAttempts(maxAttempts).backoff(Backoff.fixed(Duration.ofMillis(1)))
        .build();
  }

  private static long histories(Throwable failure) {
    return Arrays.stream(failure.getSuppressed()).filter(RetryHistory.class::isInstance).count();
  }

  @Test
  void aSharedExceptionThrownByManyCallsStaysBounded() {
    IOException shared = new IOException("service unavailable (a shared constant)");
    RetryPolicy<String> policy = policy(3);
    for (int call = 0; call < 1000; call++) {
      Execution<String> execution = policy.newExecution(0);
      execution.onFailure(new IOException("call " + call + " attempt 1"), 0);
      execution.onFailure(new IOException("call " + call + " attempt 2"), 0);
      execution.onFailure(shared, 0);
      assertThat(execution.finalFailure()).isSameAs(shared);
    }
    assertThat(shared.getSuppressed().length).isLessThanOrEqualTo(10 + Execution.MAX_HISTORIES);
    assertThat(histories(shared)).isEqualTo(Execution.MAX_HISTORIES);
  }

  @Test
  void anEarlierFailureAlreadyAttachedIsNotAttachedAgain() {
    IOException earlier = new IOException("earlier, reused");
    IOException last = new IOException("last, reused");
    RetryPolicy<String> policy = policy(2);
    for (int call = 0; call < 3; call++) {
      Execution<String> execution = policy.newExecution(0);
      execution.onFailure(earlier, 0);
      execution.onFailure(last, 0);
      execution.finalFailure();
    }
    assertThat(Arrays.stream(last.getSuppressed()).filter(s -> s == earlier)).hasSize(1);
    assertThat(histories(last)).isEqualTo(3);
  }

  @Test
  void failuresRepeatedWithinOneCallAreAttachedOnce() {
    IOException a = new IOException("a");
    IOException b = new IOException("b");
    IOException c = new IOException("c");
    Execution<String> execution = policy(5).newExecution(0);
    for (IOException failure : new IOException[] {a, b, a, b, c}) {
      execution.onFailure(failure, 0);
    }
    Throwable[] suppressed = execution.finalFailure().getSuppressed();
    assertThat(suppressed).hasSize(3).containsOnlyOnce(a, b);
    assertThat(suppressed[2]).isInstanceOf(RetryHistory.class);
  }

  @Test
  void theMostRecentEarlierFailuresWinWhenRoomIsShort() {
    IOException last = new IOException("last");
    last.addSuppressed(new IOException("already there"));
    RetryPolicy<String> policy = RetryPolicy.<String>builder().maxAttempts(4).maxSuppressed(2).build();
    Execution<String> execution = policy.newExecution(0);
    IOException first = new IOException("first");
    IOException second = new IOException("second");
    IOException third = new IOException("third");
    execution.onFailure(first, 0);
    execution.onFailure(second, 0);
    execution.onFailure(third, 0);
    execution.onFailure(last, 0);
    assertThat(Arrays.asList(execution.finalFailure().getSuppressed()).subList(1, 2)).containsExactly(third);
    assertThat(last.getSuppressed()).hasSize(3);
  }
}
