package dev.backoff.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The README's "Supported versions" table against the root pom: each row names the pom properties its
 * versions come from, and its "tested with" cell must show each property's value, so a version bump that
 * leaves the README behind (or a row naming a property the pom lost) fails the build. A row that names no
 * property must say it is not yet tested.
 */
class SupportMatrixTest {
  private static final String HEADING = "## Supported versions";
  private static final String UNTESTED = "not yet tested";

  @Test
  void everyRowOfTheReadmesMatrixShowsTheVersionsTheRootPomBuildsWith() throws Exception {
    Path root = Path.of(System.getProperty("basedir", "")).toAbsolutePath().getParent();
    String readme = Files.readString(root.resolve("README.md"));
    Map<String, String> properties = properties(root.resolve("pom.xml"));

    List<Row> rows = rows(readme);
    assertThat(rows).extracting(Row::name).as("rows of the README's support matrix")
        .contains("JDK", "Spring Boot", "Reactor", "Kotlin", "kotlinx-coroutines", "OkHttp", "Apache HttpClient 5",
            "gRPC Java", "Micrometer", "OpenTelemetry", "AWS SDK for Java v2");
    assertThat(problems(rows, properties)).as("the README's support matrix against the root pom").isEmpty();
  }

  @Test
  void aStaleVersionAnUnknownPropertyAndAnUnexplainedRowAreEachReported() {
    String readme = """
        # Project

        ## Supported versions

        | | tested with | root pom property |
        |---|---|---|
        | Reactor | 3.8.8 | `reactor.version` |
        | Micrometer | 1.17.2 | `micrometer.version` |
        | gRPC Java | 1.85 | `grpc.version` |
        | Kotlin | 2.4.21 with kotlinx-coroutines 1.10.2 | `kotlin.version`, `kotlinx-coroutines.version` |
        | Netty | 4.2.20.Final | `netty-version` |
        | AWS SDK | soon | — |
        | Jackson | not yet tested | — |

        ## Next section

        | Reactor | 1.0 | `reactor.version` |
        """;
    Map<String, String> properties = Map.of("reactor.version", "3.8.8", "micrometer.version", "1.17.20",
        "grpc.version", "1.85.1", "kotlin.version", "2.4.21", "kotlinx-coroutines.version", "1.11.0");

    List<Row> rows = rows(readme);

    assertThat(rows).extracting(Row::name)
        .containsExactly("Reactor", "Micrometer", "gRPC Java", "Kotlin", "Netty", "AWS SDK", "Jackson");
    // 1.17.2 is not 1.17.20, nor 1.85 1.85.1: a version must appear whole.
    assertThat(problems(rows, properties)).containsExactly(
        "Micrometer: 'tested with' says '1.17.2', the root pom's micrometer.version is 1.17.20",
        "gRPC Java: 'tested with' says '1.85', the root pom's grpc.version is 1.85.1",
        "Kotlin: 'tested with' says '2.4.21 with kotlinx-coroutines 1.10.2', the root pom's "
            + "kotlinx-coroutines.version is 1.11.0",
        "Netty: names netty-version, which the root pom's <properties> do not define",
        "AWS SDK: names no root pom property and does not say '" + UNTESTED + "'");
  }

  /** One row of the matrix: the component, its "tested with" cell and the properties it names. */
  record Row(String name, String testedWith, List<String> properties) {}

  /** The table rows of the README's "Supported versions" section (header and separator rows left out). */
  static List<Row> rows(String readme) {
    int start = readme.indexOf("\n" + HEADING + "\n");
    if (start < 0) {
      throw new IllegalArgumentException("no '" + HEADING + "' section in the README");
    }
    int end = readme.indexOf("\n## ", start + 1);
    String section = readme.substring(start, end < 0 ? readme.length() : end);
    List<Row> rows = new ArrayList<>();
    boolean header = true;
    for (String line : section.lines().toList()) {
      if (!line.startsWith("|")) {
        continue;
      }
      String[] cells = line.substring(1, line.lastIndexOf('|')).split("\\|", -1);
      if (header || cells[0].strip().startsWith("---")) {
        header = false;
        continue;
      }
      if (cells.length != 3) {
        throw new IllegalArgumentException("a support matrix row has " + cells.length + " cells, not 3: " + line);
      }
      List<String> named = new ArrayList<>();
      Matcher property = Pattern.compile("`([^`]+)`").matcher(cells[2]);
      while (property.find()) {
        named.add(property.group(1));
      }
      rows.add(new Row(cells[0].strip(), cells[1].strip(), named));
    }
    return rows;
  }

  /** What is wrong with the rows against the pom's properties, one sentence each; empty when nothing is. */
  static List<String> problems(List<Row> rows, Map<String, String> properties) {
    List<String> problems = new ArrayList<>();
    for (Row row : rows) {
      if (row.properties().isEmpty() && !row.testedWith().contains(UNTESTED)) {
        problems.add(row.name() + ": names no root pom property and does not say '" + UNTESTED + "'");
      }
      for (String name : row.properties()) {
        String value = properties.get(name);
        if (value == null) {
          problems.add(row.name() + ": names " + name + ", which the root pom's <properties> do not define");
        } else if (!Pattern.compile("(?<![\\w.])" + Pattern.quote(value) + "(?![\\w]|\\.\\d)")
            .matcher(row.testedWith()).find()) {
          problems.add(row.name() + ": 'tested with' says '" + row.testedWith() + "', the root pom's " + name
              + " is " + value);
        }
      }
    }
    return problems;
  }

  /** The root pom's {@code <properties>}, by name. */
  private static Map<String, String> properties(Path pom) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    Element project = factory.newDocumentBuilder().parse(pom.toFile()).getDocumentElement();
    Map<String, String> properties = new LinkedHashMap<>();
    for (Node node = project.getFirstChild(); node != null; node = node.getNextSibling()) {
      if (node instanceof Element element && element.getTagName().equals("properties")) {
        for (Node property = element.getFirstChild(); property != null; property = property.getNextSibling()) {
          if (property instanceof Element value) {
            properties.put(value.getTagName(), value.getTextContent().strip());
          }
        }
      }
    }
    return properties;
  }
}
