package dev.backoff.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * No two public top-level types of our modules on this classpath (core, http, sim, lab, cli) share a simple
 * name, so that an import never picks the wrong one ({@code dev.backoff.spec.PolicySpec} is the one policy
 * spec; the simulator's is a package-private {@code PolicySpec} of its own).
 */
class UniquePublicNamesTest {
  /** Known duplicates, each with the reason it is still there (none now). */
  private static final Map<String, String> KNOWN = Map.of();

  @Test
  void everyPublicSimpleNameIsUnique() throws Exception {
    Map<String, List<String>> byName = new TreeMap<>();
    for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      Path path = Path.of(entry);
      boolean ours = Files.isDirectory(path) ? path.endsWith(Path.of("target", "classes"))
          : path.getFileName().toString().startsWith("backoff-") && path.toString().endsWith(".jar");
      if (!ours) {
        continue; // our modules' classes (a reactor build may hand them over as jars); not the dependencies'
      }
      try (FileSystem jar = Files.isDirectory(path) ? null : FileSystems.newFileSystem(path)) {
        for (String type : publicTopLevelTypes(jar == null ? path : jar.getPath("/"))) {
          byName.computeIfAbsent(type.substring(type.lastIndexOf('.') + 1), k -> new ArrayList<>()).add(type);
        }
      }
    }
    assertThat(byName).containsKeys("RetryPolicy", "PolicySpec", "Scenario", "LabServer", "Main");
    Map<String, List<String>> duplicates = new TreeMap<>();
    byName.forEach((name, types) -> {
      if (types.size() > 1 && !KNOWN.containsKey(name)) {
        duplicates.put(name, types);
      }
    });
    assertThat(duplicates).isEmpty();
  }

  private static List<String> publicTopLevelTypes(Path root) throws IOException, ClassNotFoundException {
    List<String> types = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path file : (Iterable<Path>) files::iterator) {
        String relative = root.relativize(file).toString().replace(file.getFileSystem().getSeparator(), "/");
        if (!relative.endsWith(".class") || relative.contains("$") || relative.endsWith("package-info.class")
            || relative.endsWith("module-info.class")) {
          continue;
        }
        if (relative.startsWith("META-INF")) {
          continue;
        }
        String name = relative.substring(0, relative.length() - ".class".length()).replace('/', '.');
        Class<?> type = Class.forName(name, false, UniquePublicNamesTest.class.getClassLoader());
        if (Modifier.isPublic(type.getModifiers())) {
          types.add(name);
        }
      }
    }
    return types;
  }
}
