package dev.backoff.it.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The public API of every published module (those backoff-bom lists) against its checked-in baseline,
 * {@code <module>/api/<artifactId>.api}: any difference fails the build with the first differing lines, so
 * an unintended API change cannot pass and an intended one shows up in review as a change to that file.
 *
 * <p>To accept a change, run {@code mvn -B verify -pl backoff-it -am -Dapi.update=true} (or the whole build
 * with {@code -Dapi.update=true}): the files are rewritten from the classes just built, and the test passes.
 */
class ApiBaselineTest {
  static final String UPDATE_COMMAND = "mvn -B verify -pl backoff-it -am -Dapi.update=true";
  private static final Pattern BOM_ENTRY = Pattern.compile(
      "<groupId>dev\\.backoff</groupId>\\s*<artifactId>([^<]+)</artifactId>");
  private static final Pattern AUTOMATIC_NAME = Pattern.compile("<Automatic-Module-Name>([^<]+)</Automatic-Module-Name>");

  @Test
  void everyPublishedModulesApiMatchesItsBaseline() throws Exception {
    Path root = Path.of(System.getProperty("basedir", "")).toAbsolutePath().getParent();
    boolean update = Boolean.parseBoolean(System.getProperty("api.update", "false"));
    List<String> modules = publishedModules(root);
    assertThat(modules).as("backoff-bom's modules").contains("backoff-core", "backoff-kotlin");

    List<String> differences = new ArrayList<>();
    for (String artifactId : modules) {
      Path location = classesOf(artifactId);
      String pom = Files.readString(root.resolve(artifactId).resolve("pom.xml"));
      Matcher automatic = AUTOMATIC_NAME.matcher(pom);
      String current = ApiDump.module(artifactId, location, automatic.find() ? automatic.group(1) : null);
      Path file = root.resolve(artifactId).resolve("api").resolve(artifactId + ".api");
      String baseline = Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : null;
      Optional<String> difference = ApiDiff.compare(root.relativize(file).toString(), baseline, current);
      if (difference.isPresent() && update) {
        Files.createDirectories(file.getParent());
        Files.writeString(file, current, StandardCharsets.UTF_8);
        System.out.println("api.update: rewrote " + file);
      } else {
        difference.ifPresent(differences::add);
      }
    }
    if (!differences.isEmpty()) {
      throw new AssertionError("The public API changed. If the change is intended, accept it with\n  "
          + UPDATE_COMMAND + "\nand commit the .api files; otherwise undo it.\n\n" + String.join("\n", differences));
    }
  }

  /** backoff-bom's managed artifacts: the published modules. */
  static List<String> publishedModules(Path root) throws Exception {
    String pom = Files.readString(root.resolve("backoff-bom").resolve("pom.xml"));
    String bom = pom.substring(pom.indexOf("<dependencyManagement>"));
    List<String> modules = new ArrayList<>();
    Matcher entry = BOM_ENTRY.matcher(bom);
    while (entry.find()) {
      modules.add(entry.group(1));
    }
    return modules;
  }

  /**
   * Where this build put a module's classes, as the test class path has them: its jar in a reactor
   * {@code verify}, its class directory in a {@code test} run.
   */
  static Path classesOf(String artifactId) {
    Pattern jar = Pattern.compile(Pattern.quote(artifactId) + "-\\d[^" + Pattern.quote(File.separator) + "]*\\.jar");
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Path path = Path.of(entry);
      boolean classDirectory = path.endsWith(Path.of(artifactId, "target", "classes"));
      if (classDirectory || jar.matcher(path.getFileName().toString()).matches()) {
        return path;
      }
    }
    throw new AssertionError(artifactId + " is listed in backoff-bom but is not on backoff-it's test class path:"
        + " add it to backoff-it/pom.xml as a test dependency (without its own dependencies) so its API is checked");
  }
}
