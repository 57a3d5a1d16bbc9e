package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Modifier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The public surface stays what users need: helpers that were public only because the command line lives in
 * another package are package-private, and no public name collides with the JDK's.
 */
class PublicSurfaceTest {
  @ParameterizedTest
  @ValueSource(strings = {
      "dev.backoff.lab.FileDescriptors", "dev.backoff.lab.ServerProbe", "dev.backoff.lab.LabRecorder",
      "dev.backoff.lab.LabSample", "dev.backoff.lab.FleetTotals", "dev.backoff.lab.LabReport",
      "dev.backoff.cli.BackoffCommand", "dev.backoff.cli.PolicyOptions", "dev.backoff.cli.StrategyOptions",
      "dev.backoff.cli.DurationConverter", "dev.backoff.cli.Numbers"})
  void helpersAreNotPublic(String name) throws ClassNotFoundException {
    assertThat(Modifier.isPublic(Class.forName(name).getModifiers())).as(name).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "dev.backoff.Clock", // collided with java.time.Clock: now NanoClock
      "dev.backoff.Executors", // collided with java.util.concurrent.Executors
      "dev.backoff.sim.SimulatorBenchmark"}) // duplicated backoff-bench's SimulationBenchmark
  void collidingOrDuplicateNamesAreGone(String name) {
    assertThatThrownBy(() -> Class.forName(name)).isInstanceOf(ClassNotFoundException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"dev.backoff.NanoClock", "dev.backoff.lab.LabClientRun", "dev.backoff.lab.LabSummary",
      "dev.backoff.lab.LabDemo", "dev.backoff.cli.Main"})
  void whatUsersNeedStaysPublic(String name) throws ClassNotFoundException {
    assertThat(Modifier.isPublic(Class.forName(name).getModifiers())).as(name).isTrue();
  }
}
