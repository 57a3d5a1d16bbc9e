package dev.backoff.it.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API dump and its check on a small fixture module compiled here: what counts as API and how it is
 * written (exact text), and that a changed API is caught with a readable difference.
 */
class ApiDumpTest {
  private static final JavaCompiler JAVAC = ToolProvider.getSystemJavaCompiler();

  @TempDir Path dir;
  /** The fixture as compiled once for every test that reads it unchanged. */
  @TempDir static Path shared;
  private static Path fixtureClasses;

  private static final Map<String, String> FIXTURE = Map.ofEntries(
      Map.entry("module-info.java", """
          module fixture {
            exports fix.api;
            exports fix.spi to java.sql, java.logging;
            requires transitive java.logging;
            requires static java.sql;
          }
          """),
      Map.entry("fix/api/Widget.java", """
          package fix.api;

          import java.io.IOException;
          import java.util.Iterator;
          import java.util.List;
          import java.util.function.Function;

          public class Widget<T extends Comparable<? super T>> implements Iterable<T> {
            public static final int MAX = 3;
            public static final long BIG = 1L << 40;
            public static final double RATIO = 0.1;
            public static final double HUGE = 2e23;
            public static final float HALF = 0.5f;
            public static final char QUOTE = '\\'';
            public static final boolean ON = true;
            public static final String NAME = "a \\"b\\"\\n\\u00e9";
            public static final List<String> NOT_A_CONSTANT = List.of();
            protected int count;
            int hidden;
            private int secret;

            public Widget() {}
            protected Widget(T first) {}
            Widget(int packagePrivate) {}

            public <R> List<R> map(Function<? super T, ? extends R> f) throws IOException, InterruptedException {
              return null;
            }
            @SafeVarargs public final void add(T... items) {}
            @Deprecated(forRemoval = true) public void old() {}
            protected void hook() {}
            void internal() {}
            public Iterator<T> iterator() { return List.<T>of().iterator(); }
            public Runnable task() { return () -> secret++; }

            public static final class Part {}
            protected static class Guarded { public void run() {} }
            static class Hidden { public void notApi() {} }
            public interface Listener {
              void on(int[] values);
              default void off() {}
              static Listener none() { return values -> {}; }
            }
          }
          """),
      Map.entry("fix/api/Shape.java", "package fix.api;\npublic sealed interface Shape permits Circle, Square {}\n"),
      Map.entry("fix/api/Circle.java", "package fix.api;\npublic record Circle(double radius) implements Shape {}\n"),
      Map.entry("fix/api/Square.java", """
          package fix.api;
          public final class Square implements Shape, Comparable<Square> {
            public int compareTo(Square other) { return 0; }
            protected void notApiInAFinalClass() {}
            protected static class NotApiEither {}
          }
          """),
      Map.entry("fix/api/Color.java", """
          package fix.api;
          public enum Color { RED, GREEN { @Override public String toString() { return "green"; } } }
          """),
      Map.entry("fix/api/Marker.java", "package fix.api;\npublic @interface Marker { String value() default \"\"; }\n"),
      Map.entry("fix/api/Internal.java", "package fix.api;\nfinal class Internal { public void notApi() {} }\n"),
      Map.entry("fix/spi/Hook.java", "package fix.spi;\npublic interface Hook { void call() throws Exception; }\n"),
      Map.entry("fix/hidden/Secret.java", "package fix.hidden;\npublic class Secret { public void notExported() {} }\n"));

  private static final String EXPECTED = """
      # The public API of fixture, generated from its class files by backoff-it (ApiBaselineTest): do not edit by hand.
      # Accept a change: mvn -B verify -pl backoff-it -am -Dapi.update=true
      module fixture
        exports fix.api
        exports fix.spi to java.logging, java.sql
        requires static java.sql
        requires transitive java.logging

      ## API: the packages exported to every module

      public final record fix.api.Circle extends java.lang.Record implements fix.api.Shape
        public <init>(double)
        public final boolean equals(java.lang.Object)
        public final int hashCode()
        public double radius()
        public final java.lang.String toString()

      public enum fix.api.Color extends java.lang.Enum<fix.api.Color>
        public static final enum constant fix.api.Color GREEN
        public static final enum constant fix.api.Color RED
        public static fix.api.Color valueOf(java.lang.String)
        public static fix.api.Color[] values()

      public @interface fix.api.Marker
        public abstract java.lang.String value()

      public sealed interface fix.api.Shape permits fix.api.Circle, fix.api.Square

      public final class fix.api.Square extends java.lang.Object implements fix.api.Shape, java.lang.Comparable<fix.api.Square>
        public <init>()
        public int compareTo(fix.api.Square)

      public class fix.api.Widget<T extends java.lang.Comparable<? super T>> extends java.lang.Object implements java.lang.Iterable<T>
        public static final long BIG = 1099511627776L
        public static final float HALF = 0.5f
        public static final double HUGE = 2E+23
        public static final int MAX = 3
        public static final java.lang.String NAME = "a \\"b\\"\\n\\u00e9"
        public static final java.util.List<java.lang.String> NOT_A_CONSTANT
        public static final boolean ON = true
        public static final char QUOTE = '\\''
        public static final double RATIO = 0.1
        protected int count
        protected <init>(T)
        public <init>()
        public final void add(T...)
        protected void hook()
        public java.util.Iterator<T> iterator()
        public <R> java.util.List<R> map(java.util.function.Function<? super T, ? extends R>) throws java.io.IOException, java.lang.InterruptedException
        @Deprecated public void old()
        public java.lang.Runnable task()

      protected static class fix.api.Widget.Guarded extends java.lang.Object
        protected <init>()
        public void run()

      public static interface fix.api.Widget.Listener
        public static fix.api.Widget.Listener none()
        public default void off()
        public abstract void on(int[])

      public static final class fix.api.Widget.Part extends java.lang.Object
        public <init>()

      ## Driver SPI: the packages exported only to named modules (not API for users)

      public interface fix.spi.Hook
        public abstract void call() throws java.lang.Exception
      """;

  @BeforeAll
  static void compileFixture() throws IOException {
    fixtureClasses = compile(shared, "v1", FIXTURE);
  }

  @Test
  void theDumpHoldsExactlyThePublicAndProtectedApiOfTheExportedPackages() throws Exception {
    assertThat(ApiDump.module("fixture", fixtureClasses, null)).isEqualTo(EXPECTED);
  }

  @Test
  void aJarReadsTheSameAsItsClassDirectory() throws Exception {
    Path classes = fixtureClasses;
    Path jar = dir.resolve("fixture.jar");
    try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(jar))) {
      for (Map.Entry<String, byte[]> file : ApiDump.classFiles(classes).entrySet()) {
        out.putNextEntry(new ZipEntry(file.getKey()));
        out.write(file.getValue());
      }
    }

    assertThat(ApiDump.module("fixture", jar, null)).isEqualTo(EXPECTED);
  }

  @Test
  void aRemovedMethodIsReportedAsTheLinesThatDiffer() throws Exception {
    Map<String, String> changed = new HashMap<>(FIXTURE);
    changed.put("fix/api/Widget.java", FIXTURE.get("fix/api/Widget.java")
        .replace("@Deprecated(forRemoval = true) public void old() {}", ""));
    String current = ApiDump.module("fixture", compile(dir, "v2", changed), null);

    Optional<String> report = ApiDiff.compare("fixture.api", EXPECTED, current);

    int line = EXPECTED.lines().toList().indexOf("  @Deprecated public void old()") + 1;
    assertThat(report).hasValue("fixture.api: the API differs from the baseline\n"
        + "@@ baseline line " + (line - 2) + ", build line " + (line - 2) + " @@\n"
        + "    public java.util.Iterator<T> iterator()\n"
        + "    public <R> java.util.List<R> map(java.util.function.Function<? super T, ? extends R>)"
        + " throws java.io.IOException, java.lang.InterruptedException\n"
        + "-   @Deprecated public void old()\n"
        + "    public java.lang.Runnable task()\n"
        + "  \n"); // the blank line after the type, as context
  }

  @Test
  void aChangedSignatureAndAnAddedTypeAreBothReported() throws Exception {
    Map<String, String> changed = new HashMap<>(FIXTURE);
    changed.put("fix/spi/Hook.java", "package fix.spi;\npublic interface Hook { void call(); }\n");
    changed.put("fix/api/Extra.java", "package fix.api;\npublic final class Extra { private Extra() {} }\n");
    String current = ApiDump.module("fixture", compile(dir, "v3", changed), null);

    String report = ApiDiff.compare("fixture.api", EXPECTED, current).orElseThrow();

    assertThat(report.lines().filter(line -> line.startsWith("-") || line.startsWith("+"))).containsExactly(
        // A block is its lines after a blank one: the diff keeps the blank before Marker and adds one after Extra.
        "+ public final class fix.api.Extra extends java.lang.Object",
        "+ ",
        "-   public abstract void call() throws java.lang.Exception",
        "+   public abstract void call()");
  }

  @Test
  void noBaselineYetIsReportedAsSuch() {
    assertThat(ApiDiff.compare("x.api", null, "a\nb\n")).hasValue("x.api: no baseline yet (2 lines of API to record)\n");
    assertThat(ApiDiff.compare("x.api", "a\nb\n", "a\nb\n")).isEmpty();
  }

  @Test
  void aLongDifferenceIsCutAfterThirtyChangedLines() {
    StringBuilder before = new StringBuilder();
    StringBuilder after = new StringBuilder();
    for (int i = 0; i < 50; i++) {
      before.append("old ").append(i).append('\n');
      after.append("new ").append(i).append('\n');
    }

    String report = ApiDiff.compare("x.api", before.toString(), after.toString()).orElseThrow();

    assertThat(report.lines().filter(line -> !line.startsWith(" ") && !line.startsWith("x.api")
        && !line.startsWith("@@") && !line.startsWith("..."))).hasSize(ApiDiff.MAX_CHANGED_LINES);
    assertThat(report).endsWith("... and 70 more changed lines\n");
  }

  @Test
  void aJarWithoutDescriptorIsReadAsAnAutomaticModuleExportingEveryPackage() throws Exception {
    Map<String, String> sources = new HashMap<>(FIXTURE);
    sources.remove("module-info.java");
    Path classes = compile(dir, "auto", sources);

    String text = ApiDump.module("auto", classes, "fix.auto");

    assertThat(text).contains("automatic module fix.auto (no module-info.class: every package is exported)\n",
        "public class fix.hidden.Secret extends java.lang.Object\n  public <init>()\n  public void notExported()\n",
        "public interface fix.spi.Hook\n");
    assertThat(text).doesNotContain("Driver SPI");
  }

  @Test
  void kotlinInternalDeclarationsAreNotApiThoughTheirClassFilesArePublic() throws Exception {
    // backoff-kotlin as built: internal classes (CoroutineAttempt), an internal constructor and an internal
    // member (RetryPolicyBuilder's, build() compiled as the public build$backoff_kotlin) next to public API.
    Path kotlin = ApiBaselineTest.classesOf("backoff-kotlin");
    Map<String, byte[]> files = ApiDump.classFiles(kotlin);
    assertThat(ClassFile.read(files.get("dev/backoff/kotlin/CoroutineAttempt.class")).access() & ClassFile.ACC_PUBLIC)
        .as("an internal class is public in its class file").isNotZero();

    String text = ApiDump.module("backoff-kotlin", kotlin, "dev.backoff.kotlin");

    assertThat(text).contains("public final class dev.backoff.kotlin.RetryPolicyBuilder<T> extends java.lang.Object\n",
        "  public final void setMaxAttempts(int)\n",
        "  public static final <T> dev.backoff.RetryPolicy<T> retryPolicy(");
    assertThat(text).doesNotContain("CoroutineAttempt", "build$backoff_kotlin",
        "RetryPolicyBuilder<T> extends java.lang.Object\n  public <init>");
  }

  /** Compiles sources into a fresh class directory with {@code --release 17}. */
  private static Path compile(Path dir, String name, Map<String, String> sources) throws IOException {
    Path source = dir.resolve(name + "-src");
    Path classes = dir.resolve(name + "-classes");
    List<String> arguments = new ArrayList<>(List.of("--release", "17", "-d", classes.toString()));
    for (Map.Entry<String, String> file : sources.entrySet()) {
      Path path = source.resolve(file.getKey());
      Files.createDirectories(path.getParent());
      Files.writeString(path, file.getValue());
      arguments.add(path.toString());
    }
    ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
    int exitCode = JAVAC.run(null, diagnostics, diagnostics, arguments.toArray(String[]::new));
    assertThat(exitCode).as(diagnostics.toString(StandardCharsets.UTF_8)).isZero();
    return classes;
  }
}
