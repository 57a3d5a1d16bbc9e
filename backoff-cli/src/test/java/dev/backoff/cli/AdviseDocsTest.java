package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * docs/simulator.md's advisor blocks under "Hold-out results for the shipped scenarios": each starts with
 * its {@code $ ./backoff advise ...} command and shows what it prints up to the trade-off (the search, the
 * held-out count, the checks, the held-out results, the worst case with its margins and the verdicts), then
 * {@code …} and the recommendation (or, when nothing is shown, the exit status and the message on stderr),
 * exactly. The runs are reduced (2 seeds, the grid, 3 candidates checked, recovers>=0.8 so that 16 held-out
 * seeds per check can show it) so that each takes seconds to a minute; tagged slow.
 */
@Tag("slow")
class AdviseDocsTest {
  private static final String SECTION = "### Hold-out results for the shipped scenarios";

  static Stream<String> commands() throws Exception {
    String docs = section();
    List<String> commands = new ArrayList<>();
    for (String line : docs.lines().toList()) {
      if (line.startsWith("$ ./backoff advise ")) {
        commands.add(line);
      }
    }
    assertThat(commands).as("advise blocks in " + SECTION).hasSizeGreaterThanOrEqualTo(4);
    return commands.stream();
  }

  private static String section() throws Exception {
    String docs = Files.readString(Path.of("..", "docs", "simulator.md"));
    int start = docs.indexOf(SECTION);
    assertThat(start).as(SECTION).isNotNegative();
    int end = docs.indexOf("\n### ", start + SECTION.length());
    return docs.substring(start, end < 0 ? docs.length() : end);
  }

  @ParameterizedTest
  @MethodSource("commands")
  void theBlockIsWhatItsCommandPrints(String command) throws Exception {
    String docs = section();
    int start = docs.indexOf(command + "\n") + command.length() + 1;
    String block = docs.substring(start, docs.indexOf("```\n", start));
    CliRunner advise = CliRunner.run(arguments(command.substring("$ ./backoff ".length())));
    assertThat(advise.exitCode).as(advise.err).isIn(0, 1);
    assertThat(block).isEqualTo(shown(advise));
  }

  /** What a block shows of a run: the output up to the trade-off, then the recommendation or the failure. */
  static String shown(CliRunner advise) {
    String out = advise.out;
    String head = out.substring(0, out.indexOf("\ntrade-off on the training seeds") + 1);
    if (advise.exitCode == 0) {
      int recommended = out.indexOf("\nrecommended: ") + 1;
      return head + "…\n" + out.substring(recommended, out.indexOf('\n', recommended) + 1);
    }
    return head + "…\nexit status 1; on stderr:\n" + advise.err;
  }

  /** The command's words, single quotes removed; a path under docs/ resolved from this module's directory. */
  static String[] arguments(String command) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean quoted = false;
    boolean any = false;
    for (char c : command.toCharArray()) {
      if (c == '\'') {
        quoted = !quoted;
        any = true;
      } else if (c == ' ' && !quoted) {
        if (any) {
          words.add(word.toString());
        }
        word.setLength(0);
        any = false;
      } else {
        word.append(c);
        any = true;
      }
    }
    if (any) {
      words.add(word.toString());
    }
    return words.stream().map(w -> w.startsWith("docs/") ? Path.of("..").resolve(w).toString() : w)
        .toArray(String[]::new);
  }
}
