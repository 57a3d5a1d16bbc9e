package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.backoff.spec.ExperimentPolicies;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.TypeConversionException;

class BackoffCommandTest {

  @Test
  void strategiesListsEveryStrategyAndPresetOnStdout() {
    CliRunner result = CliRunner.run("strategies");
    assertThat(result.exitCode).isZero();
    for (String name : ExperimentPolicies.allNames()) {
      assertThat(result.out).contains(name);
    }
    assertThat(result.err).isEmpty();
  }

  @Test
  void unknownSubcommandIsAUsageErrorWithOneLineAndAHint() {
    CliRunner result = CliRunner.run("frobnicate");
    assertThat(result.exitCode).isEqualTo(2);
    assertThat(result.err.lines()).hasSize(2);
    assertThat(result.err).contains("frobnicate").contains("--help");
    assertThat(result.err).doesNotContain("Exception");
  }

  @Test
  void noSubcommandIsAUsageError() {
    assertThat(CliRunner.run().exitCode).isEqualTo(2);
  }

  @Test
  void versionAndHelpExitZero() {
    assertThat(CliRunner.run("--version").exitCode).isZero();
    CliRunner help = CliRunner.run("--help");
    assertThat(help.exitCode).isZero();
    assertThat(help.out).contains("strategies");
  }

  @Test
  void durationsAcceptShortAndIsoForms() {
    assertThat(DurationConverter.parse("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(DurationConverter.parse("1s")).isEqualTo(Duration.ofSeconds(1));
    assertThat(DurationConverter.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
    assertThat(DurationConverter.parse("2m")).isEqualTo(Duration.ofMinutes(2));
    assertThat(DurationConverter.parse("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(DurationConverter.parse("PT1S")).isEqualTo(Duration.ofSeconds(1));
    assertThat(DurationConverter.parse("pt0.5s")).isEqualTo(Duration.ofMillis(500));
    assertThat(DurationConverter.parse("10us")).isEqualTo(Duration.ofNanos(10_000));
  }

  @Test
  void badDurationsNameTheValue() {
    for (String bad : new String[] {"5", "1 parsec", "-1s", "PTxS", ""}) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> DurationConverter.parse(bad))
          .isInstanceOf(TypeConversionException.class)
          .hasMessageContaining("'" + bad + "'");
    }
  }
}
