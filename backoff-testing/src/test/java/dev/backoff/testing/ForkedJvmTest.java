package dev.backoff.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class ForkedJvmTest {

  /** The child: prints its arguments and heap limit, then exits with the status it is given. */
  public static final class Child {
    public static void main(String[] args) throws Exception {
      if (args[0].equals("hang")) {
        Thread.sleep(60_000);
      }
      System.out.println("args=" + String.join(",", args));
      System.err.println("max heap MB=" + Runtime.getRuntime().maxMemory() / (1024 * 1024));
      System.exit(Integer.parseInt(args[0]));
    }
  }

  @Test
  void runsTheClassWithItsOptionsAndArgumentsAndReportsWhatItDid() throws Exception {
    ForkedJvm.Result result = ForkedJvm.run(Child.class, List.of("-Xmx32m"), Duration.ofSeconds(60), "7", "x y");
    assertThat(result.exitCode()).isEqualTo(7);
    assertThat(result.output()).contains("args=7,x y");
    String heapLine = result.output().lines().filter(line -> line.startsWith("max heap MB=")).findFirst().orElseThrow();
    assertThat(Long.parseLong(heapLine.substring("max heap MB=".length()))).isLessThanOrEqualTo(32);
  }

  @Test
  void aChildThatHangsIsKilledAndFailsTheTest() {
    assertThatThrownBy(() -> ForkedJvm.run(Child.class, List.of(), Duration.ofSeconds(2), "hang"))
        .isInstanceOf(AssertionError.class).hasMessageStartingWith("Child did not finish within 2 s");
  }

  @Test
  void argumentsAreChecked() {
    assertThatThrownBy(() -> ForkedJvm.run(Child.class, List.of(), Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("timeout must be positive, was PT0S");
    assertThatThrownBy(() -> ForkedJvm.run(null, List.of(), Duration.ofSeconds(1)))
        .isInstanceOf(NullPointerException.class).hasMessage("mainClass must not be null");
  }
}
