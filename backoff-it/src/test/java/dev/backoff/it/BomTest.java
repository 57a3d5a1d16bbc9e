package dev.backoff.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * backoff-bom against the root pom: the BOM lists exactly the published modules (those of the root pom's
 * {@code <modules>} that do not set {@code maven.deploy.skip} to {@code true}), each at
 * {@code ${project.version}}, and carries the root pom's version, so a new library module cannot be left out
 * of the BOM and an unpublished one cannot slip in.
 */
class BomTest {
  private static final String BOM = "backoff-bom";

  @TempDir Path dir;

  @Test
  void theBomListsExactlyThePublishedModulesOfTheRootPomAtItsVersion() throws Exception {
    Path root = Path.of(System.getProperty("basedir", "")).toAbsolutePath().getParent();
    Document rootPom = parse(root.resolve("pom.xml"));
    Document bom = parse(root.resolve(BOM).resolve("pom.xml"));

    assertThat(published(root)).as("published modules of the root pom")
        .contains("backoff-core", "backoff-kotlin", "backoff-spring-boot-starter")
        .doesNotContain("backoff-cli", "backoff-bench", "backoff-it", "backoff-conformance", BOM);
    assertThat(bomEntries(bom)).as("backoff-bom's dependencyManagement").isEqualTo(published(root));
    assertThat(child(bom.getDocumentElement(), "parent")).as("backoff-bom's parent (it would leak pins)").isNull();
    assertThat(text(bom.getDocumentElement(), "version")).as("backoff-bom's version")
        .isEqualTo(text(rootPom.getDocumentElement(), "version"));
    assertThat(text(bom.getDocumentElement(), "groupId"))
        .isEqualTo(text(rootPom.getDocumentElement(), "groupId"));
  }

  @Test
  void aPublishedModuleMissingFromTheBomOrAnUnpublishedOneListedIsSeen() throws Exception {
    // A miniature reactor: lib-a and lib-b published, tool not (deploy skipped), and a BOM listing lib-a and tool.
    write("pom.xml", "<project><groupId>dev.backoff</groupId><version>1</version><modules>"
        + "<module>lib-a</module><module>lib-b</module><module>tool</module><module>" + BOM + "</module>"
        + "</modules></project>");
    write("lib-a/pom.xml", "<project><artifactId>lib-a</artifactId></project>");
    write("lib-b/pom.xml", "<project><artifactId>lib-b</artifactId>"
        + "<properties><maven.deploy.skip>false</maven.deploy.skip></properties></project>");
    write("tool/pom.xml", "<project><artifactId>tool</artifactId>"
        + "<properties><maven.deploy.skip> true </maven.deploy.skip></properties></project>");
    write(BOM + "/pom.xml", "<project><artifactId>" + BOM + "</artifactId><dependencyManagement><dependencies>"
        + "<dependency><groupId>dev.backoff</groupId><artifactId>lib-a</artifactId><version>${project.version}</version></dependency>"
        + "<dependency><groupId>dev.backoff</groupId><artifactId>tool</artifactId><version>${project.version}</version></dependency>"
        + "<dependency><groupId>dev.backoff</groupId><artifactId>lib-b</artifactId><version>1</version></dependency>"
        + "</dependencies></dependencyManagement></project>");

    assertThat(published(dir)).containsExactly("lib-a", "lib-b");
    // lib-b is listed at a literal version, not ${project.version}: reported with it, so it differs from "lib-b".
    assertThat(bomEntries(parse(dir.resolve(BOM).resolve("pom.xml"))))
        .containsExactly("lib-a", "lib-b@1", "tool");
  }

  /** Artifact ids of the root pom's modules that are deployed, without the BOM itself. */
  private static Set<String> published(Path root) throws Exception {
    Set<String> ids = new TreeSet<>();
    Element modules = child(parse(root.resolve("pom.xml")).getDocumentElement(), "modules");
    for (Element module : children(modules, "module")) {
      Element pom = parse(root.resolve(module.getTextContent().trim()).resolve("pom.xml")).getDocumentElement();
      String id = text(pom, "artifactId");
      if (id == null) {
        throw new IllegalStateException("no artifactId in " + module.getTextContent().trim() + "/pom.xml");
      }
      Element properties = child(pom, "properties");
      String deploySkip = properties == null ? null : text(properties, "maven.deploy.skip");
      if (!BOM.equals(id) && !"true".equals(deploySkip)) {
        ids.add(id);
      }
    }
    return ids;
  }

  /**
   * The BOM's managed artifact ids; one not in this project's group or not at {@code ${project.version}} is
   * reported as {@code id@version} or {@code group:id}, so it cannot match a published module.
   */
  private static Set<String> bomEntries(Document bom) {
    Set<String> ids = new TreeSet<>();
    Element management = child(bom.getDocumentElement(), "dependencyManagement");
    for (Element dependency : children(child(management, "dependencies"), "dependency")) {
      String group = text(dependency, "groupId");
      String id = text(dependency, "artifactId");
      String version = text(dependency, "version");
      String entry = "${project.version}".equals(version) ? id : id + "@" + version;
      ids.add(group.equals("dev.backoff") ? entry : group + ":" + entry);
    }
    return ids;
  }

  private void write(String path, String text) throws IOException {
    Path file = dir.resolve(path);
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
  }

  private static Document parse(Path pom) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    return factory.newDocumentBuilder().parse(pom.toFile());
  }

  private static List<Element> children(Element parent, String name) {
    List<Element> found = new ArrayList<>();
    for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
      if (node instanceof Element element && element.getTagName().equals(name)) {
        found.add(element);
      }
    }
    return found;
  }

  private static Element child(Element parent, String name) {
    List<Element> found = children(parent, name);
    return found.isEmpty() ? null : found.get(0);
  }

  private static String text(Element parent, String name) {
    Element element = child(parent, name);
    return element == null ? null : element.getTextContent().trim();
  }
}
