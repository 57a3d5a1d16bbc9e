package dev.backoff.sim;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The one JSON writer: every string escaped completely, numbers as exact text, the simulator's line layout. */
class JsonTest {
  @Test
  void everyStringRoundTripsAndCannotCloseAScript() throws Exception {
    String nasty = "a\"b\\c\nd\te\u0001\u001f</script><b>&amp;é🙂";
    String quoted = Json.quote(nasty);
    assertThat(new ObjectMapper().readValue(quoted, String.class)).isEqualTo(nasty);
    assertThat(quoted).doesNotContain("<").doesNotContain(">").doesNotContain("&").doesNotContain("\n");
  }

  @Test
  void numbersAreExactTextAndNaNIsNull() {
    assertThat(Json.compact().array().decimal(0.125, 2).decimal(Double.NaN, 3).decimal(1e20, 1).number(7)
        .number((Integer) null).endArray().toString()).isEqualTo("[0.13,null,100000000000000000000.0,7,null]");
  }

  @Test
  void linesLayoutPutsEachArrayElementOnALine() {
    String text = Json.lines().object().field("a").array()
        .object().field("s").array().object().endObject().object().endObject().endArray().endObject()
        .object().field("s").array().endArray().endObject()
        .endArray().endObject().toString();
    assertThat(text).isEqualTo("{\"a\":[\n{\"s\":[\n{},\n{}]},\n{\"s\":[]}\n]}");
  }
}
