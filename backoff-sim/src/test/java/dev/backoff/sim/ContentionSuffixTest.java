package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The contention scenario with the policy grammar's +budget and +breaker suffixes. */
class ContentionSuffixTest {

  @Test
  void aSharedBreakerMakesClientsGiveUpAndABudgetCapsTheRetries() {
    List<Contention.Row> rows = Contention.run(Map.of("clients", "100", "runs", 5,
        "strategies", "full-jitter,full-jitter+breaker,full-jitter+budget"));
    Contention.Row plain = rows.get(0);
    Contention.Row breaker = rows.get(1);
    Contention.Row budget = rows.get(2);
    assertThat(plain.gaveUp()).isZero();
    // A hundred clients collide at first: more than half the first 20 attempts conflict, the breaker opens,
    // and the clients that ask while it is open give up without writing.
    assertThat(breaker.gaveUp()).isGreaterThan(10);
    assertThat(breaker.calls()).isLessThan(plain.calls());
    // Five clients write in fewer than the 20 calls the breaker's window needs: it never opens.
    Contention.Row few = Contention.run(Map.of("clients", "5", "runs", 5, "strategies", "full-jitter+breaker")).get(0);
    assertThat(few.calls()).isLessThan(20);
    assertThat(few.gaveUp()).isZero();
    // AWS's token bucket (500 tokens, 5 per retry) allows 100 retries, then clients give up.
    assertThat(budget.gaveUp()).isPositive();
    for (Contention.Row row : rows) {
      assertThat(row.gaveUp()).isBetween(0.0, 100.0);
    }
  }

  @Test
  void reportsAddGaveUpOnlyWhenAStrategyCanGiveUp() {
    List<Contention.Row> plain = Contention.run(Map.of("clients", "20", "runs", 2, "strategies", "full-jitter"));
    assertThat(Contention.json(plain)).doesNotContain("gaveUp");
    assertThat(Contention.csv(plain)).startsWith("strategy,clients,calls,timeMs\n");
    assertThat(Contention.table(plain)).doesNotContain("gave up");
    List<Contention.Row> mixed = Contention.run(Map.of("clients", "20", "runs", 2, "strategies", "full-jitter,full-jitter+breaker"));
    assertThat(Contention.csv(mixed)).startsWith("strategy,clients,calls,timeMs,gaveUp\n");
    assertThat(Contention.json(mixed)).contains("\"gaveUp\"");
    assertThat(Contention.table(mixed)).contains("mean clients that gave up");
    assertThat(Contention.json(Contention.run(Map.of("clients", "20", "runs", 2, "strategies", "full-jitter,full-jitter+breaker"))))
        .isEqualTo(Contention.json(mixed));
  }

  @Test
  void suffixesThatDoNotApplyAreRefusedWithTheReason() {
    assertThatThrownBy(() -> Contention.run(Map.of("strategies", "full-jitter+hedge:5ms")))
        .isInstanceOf(ScenarioException.class)
        .hasMessage("strategies: strategy 'full-jitter+hedge:5ms': +hedge does not apply to contention (a hedged "
            + "conditional write would conflict with its own twin); use +budget or +breaker");
    assertThatThrownBy(() -> Contention.run(Map.of("strategies", "full-jitter+adaptive")))
        .hasMessageContaining("+adaptive does not apply to contention (a conflict is not a throttling answer)");
    assertThatThrownBy(() -> Contention.run(Map.of("strategies", "full-jitter+concurrency")))
        .hasMessage("strategies: strategy 'full-jitter+concurrency': +concurrency is not modelled by the "
            + "contention scenario (its clients write one at a time each); use +budget or +breaker");
    assertThatThrownBy(() -> Contention.run(Map.of("strategies", "full-jitter+breaker:0%")))
        .hasMessage("strategies: bad policy 'full-jitter+breaker:0%': breaker failure rate '0%': out of range (0..100]%");
    assertThatThrownBy(() -> Contention.run(Map.of("strategies", "fulll+breaker")))
        .hasMessageStartingWith("strategies: unknown policy 'fulll'");
    // The article's former names are refused with the name every command uses.
    assertThatThrownBy(() -> Contention.run(Map.of("strategies", "none,full")))
        .hasMessageStartingWith("strategies: unknown policy 'full'; did you mean 'full-jitter'?");
    assertThatThrownBy(() -> Contention.run(Map.of("strategies", "decorrelatedV2")))
        .hasMessageStartingWith("strategies: unknown policy 'decorrelatedv2'; did you mean 'decorrelated-v2'?");
  }
}
