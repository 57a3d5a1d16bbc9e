package dev.backoff.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class TestDoublesTest {

  @AfterEach
  void clearInterruptFlag() {
    Thread.interrupted();
  }

  @Test
  void fakeClockMovesOnlyWhenToldAndWrapsLikeNanoTime() {
    FakeClock clock = new FakeClock(Long.MAX_VALUE - 5);
    assertThat(clock.nanoTime()).isEqualTo(Long.MAX_VALUE - 5);
    assertThat(clock.nanoTime()).isEqualTo(Long.MAX_VALUE - 5);
    clock.advanceNanos(10);
    assertThat(clock.nanoTime()).isEqualTo(Long.MIN_VALUE + 4);
    assertThat(clock.nanoTime() - (Long.MAX_VALUE - 5)).isEqualTo(10);
    clock.advance(Duration.ofSeconds(1));
    assertThat(new FakeClock().nanoTime()).isZero();
    assertThatThrownBy(() -> clock.advanceNanos(-1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> clock.advance(Duration.ofMillis(-1))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PT-0.001S");
  }

  @Test
  void recordingSleeperRecordsAndAdvancesItsClock() throws InterruptedException {
    FakeClock clock = new FakeClock(100);
    RecordingSleeper sleeper = new RecordingSleeper(clock);
    sleeper.sleep(1_000);
    sleeper.sleep(0);
    sleeper.sleep(2_000_000_000L);
    assertThat(sleeper.sleepNanos()).containsExactly(1_000L, 0L, 2_000_000_000L);
    assertThat(sleeper.sleeps()).containsExactly(Duration.ofNanos(1_000), Duration.ZERO, Duration.ofSeconds(2));
    assertThat(sleeper.total()).isEqualTo(Duration.ofNanos(2_000_001_000L));
    assertThat(clock.nanoTime()).isEqualTo(100 + 2_000_001_000L);
  }

  @Test
  void recordingSleeperHonoursInterruption() {
    RecordingSleeper sleeper = new RecordingSleeper();
    Thread.currentThread().interrupt();
    assertThatThrownBy(() -> sleeper.sleep(5)).isInstanceOf(InterruptedException.class);
    assertThat(Thread.currentThread().isInterrupted()).as("a sleep clears the flag it reports").isFalse();
    assertThat(sleeper.sleepNanos()).isEmpty();
  }

  @Test
  void recordingSleeperCanScriptAnInterruptionDuringALaterSleep() throws InterruptedException {
    RecordingSleeper sleeper = new RecordingSleeper().interruptAfter(2);
    sleeper.sleep(1);
    sleeper.sleep(2);
    assertThatThrownBy(() -> sleeper.sleep(3)).isInstanceOf(InterruptedException.class)
        .hasMessageContaining("sleep 3");
    assertThat(sleeper.sleepNanos()).containsExactly(1L, 2L);
  }

  @Test
  void scriptedRandomReturnsItsScriptInOrderAndCycles() {
    ScriptedRandom random = new ScriptedRandom(0.1, 0.5, 0.9);
    assertThat(random.nextDouble()).isEqualTo(0.1);
    assertThat(random.position()).isEqualTo(1);
    assertThat(random.nextDouble()).isEqualTo(0.5);
    assertThat(random.nextDouble()).isEqualTo(0.9);
    assertThat(random.nextDouble()).isEqualTo(0.1);
    assertThat(new ScriptedRandom(0.0).nextLong()).isEqualTo(Long.MIN_VALUE);
    assertThat(new ScriptedRandom(0.5).nextLong()).isZero();
    assertThat(new ScriptedRandom(Math.nextDown(1.0)).nextLong()).isPositive();
  }

  @Test
  void scriptedRandomRejectsValuesOutsideTheUnitInterval() {
    assertThatThrownBy(ScriptedRandom::new).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one value");
    for (double bad : new double[] {1.0, -0.1, Double.NaN}) {
      assertThatThrownBy(() -> new ScriptedRandom(0.5, bad)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(String.valueOf(bad));
    }
  }
}
