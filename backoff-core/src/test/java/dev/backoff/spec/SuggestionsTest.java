package dev.backoff.spec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** "Did you mean" for a misspelt strategy, preset or policy name, in every command and scenario file. */
class SuggestionsTest {
  @Test
  void editDistanceCountsASwapAsOneMistake() {
    assertThat(Suggestions.distance("kitten", "sitting")).isEqualTo(3);
    assertThat(Suggestions.distance("ab", "ba")).isEqualTo(1);
    assertThat(Suggestions.distance("", "abc")).isEqualTo(3);
  }

  @Test
  void aMisspeltStrategyGetsTheClosestName() {
    assertThatThrownBy(() -> BackoffSpec.of("exponentail"))
        .hasMessageStartingWith("unknown strategy 'exponentail'; did you mean 'exponential'?");
    assertThatThrownBy(() -> BackoffSpec.parse("full-jiter:100ms:20s"))
        .hasMessageContaining("did you mean 'full-jitter'?");
    assertThatThrownBy(() -> PolicySpec.parse("decorelated").resolvedStrategy())
        .hasMessageContaining("did you mean 'decorrelated'?");
    assertThatThrownBy(() -> BackoffSpec.of("zzzzzz")).hasMessageNotContaining("did you mean");
  }
}
