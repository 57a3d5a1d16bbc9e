package dev.backoff.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No test class mixes JUnit's {@code @Test} with jqwik's {@code @Property}: each engine would run the class
 * and Surefire would write both runs to one report file, the second overwriting the first, so the reports
 * would count fewer tests than ran. A class with properties uses jqwik's {@code @Example} for its plain tests,
 * or keeps its properties in a {@code *Properties} class of their own.
 */
class OneEnginePerTestClassTest {
  private static final Pattern JUNIT_TEST = Pattern.compile("^\\s*@(Test|ParameterizedTest|RepeatedTest)\\b",
      Pattern.MULTILINE);
  private static final Pattern JQWIK_PROPERTY = Pattern.compile("^\\s*@Property\\b", Pattern.MULTILINE);

  @Test
  void noTestClassIsRunByBothEngines() throws IOException {
    Path root = Path.of(System.getProperty("basedir", "")).toAbsolutePath().getParent();
    List<String> mixed;
    try (Stream<Path> files = Files.walk(root)) {
      mixed = files
          .filter(file -> file.toString().endsWith(".java") && file.toString().contains("/src/test/"))
          .filter(file -> !file.toString().contains("/target/"))
          .filter(file -> {
            try {
              String source = Files.readString(file);
              return JUNIT_TEST.matcher(source).find() && JQWIK_PROPERTY.matcher(source).find();
            } catch (IOException e) {
              throw new java.io.UncheckedIOException(e);
            }
          })
          .map(file -> root.relativize(file).toString())
          .sorted()
          .toList();
    }
    assertThat(mixed).as("test classes with both JUnit tests and jqwik properties").isEmpty();
  }
}
