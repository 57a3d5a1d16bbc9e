package dev.backoff.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

/** The header lookup the rules see, which must link on Spring Framework 6.2 and 7 alike. */
class SpringViewsTest {
  @Test
  void findsEveryValueOfAHeaderWhateverItsCase() {
    HttpHeaders headers = new HttpHeaders();
    headers.add("Retry-After", "Wed, 21 Oct 2026 07:28:00 GMT"); // a comma inside one value: not split
    headers.add("retry-after", "120");
    headers.add("Content-Type", "text/plain");

    assertThat(SpringViews.values(headers, "retry-after")).containsExactly("Wed, 21 Oct 2026 07:28:00 GMT", "120");
    assertThat(SpringViews.values(headers, "RETRY-AFTER")).containsExactly("Wed, 21 Oct 2026 07:28:00 GMT", "120");
    assertThat(SpringViews.values(headers, "Idempotency-Key")).isEqualTo(List.of());
  }
}
