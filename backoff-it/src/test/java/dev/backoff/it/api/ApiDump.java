package dev.backoff.it.api;

import static dev.backoff.it.api.ClassFile.ACC_ABSTRACT;
import static dev.backoff.it.api.ClassFile.ACC_ANNOTATION;
import static dev.backoff.it.api.ClassFile.ACC_BRIDGE;
import static dev.backoff.it.api.ClassFile.ACC_ENUM;
import static dev.backoff.it.api.ClassFile.ACC_FINAL;
import static dev.backoff.it.api.ClassFile.ACC_INTERFACE;
import static dev.backoff.it.api.ClassFile.ACC_PROTECTED;
import static dev.backoff.it.api.ClassFile.ACC_PUBLIC;
import static dev.backoff.it.api.ClassFile.ACC_STATIC;
import static dev.backoff.it.api.ClassFile.ACC_SYNTHETIC;
import static dev.backoff.it.api.ClassFile.ACC_VARARGS;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Writes the public API of a module as sorted text, one line per type and per member, in a form that
 * reads like Java: every public or protected type of the module's exported packages with its modifiers,
 * type parameters, superclass, interfaces and permitted subclasses, and each of its public or protected
 * fields (constants with their values), constructors ({@code <init>}) and methods with generic signatures
 * and {@code throws} clauses. Protected members count only in classes that can be subclassed (not final).
 * Synthetic and bridge members (compiler-made) are left out, and so are Kotlin's {@code internal} and
 * {@code private} declarations, which are public in the class file (see {@link KotlinVisibility}). Packages
 * exported only to named modules (the driver SPI) are listed in a section of their own.
 *
 * <p>The text comes from the class files alone (see {@link ClassFile}), sorted by name, so it is the same
 * whichever JDK runs the check, and it changes exactly when a class file's API does.
 */
public final class ApiDump {
  private ApiDump() {}

  /**
   * The API text of one module.
   *
   * @param artifactId the module's Maven artifact id, named in the first line
   * @param location the module's classes: a directory or a jar
   * @param automaticName the module name of a jar without {@code module-info.class} (every package is then
   *     exported), or {@code null} when the module has a descriptor
   * @return the text, lines ending in {@code \n}
   * @throws IOException if the classes cannot be read
   * @throws IllegalArgumentException if there is neither a descriptor nor an {@code automaticName}
   */
  public static String module(String artifactId, Path location, String automaticName) throws IOException {
    Map<String, byte[]> files = classFiles(location);
    byte[] descriptorBytes = files.remove("module-info.class");
    List<ClassFile> classes = new ArrayList<>();
    for (Map.Entry<String, byte[]> file : files.entrySet()) {
      try {
        classes.add(ClassFile.read(file.getValue()));
      } catch (IOException e) {
        throw new IOException(file.getKey() + " in " + location + ": " + e.getMessage(), e);
      }
    }
    StringBuilder text = new StringBuilder();
    text.append("# The public API of ").append(artifactId)
        .append(", generated from its class files by backoff-it (ApiBaselineTest): do not edit by hand.\n")
        .append("# Accept a change: mvn -B verify -pl backoff-it -am -Dapi.update=true\n");
    Set<String> everyone = new TreeSet<>();
    Set<String> qualified = new TreeSet<>();
    if (descriptorBytes != null) {
      ModuleDescriptor descriptor = ModuleDescriptor.read(ByteBuffer.wrap(descriptorBytes));
      text.append(describe(descriptor));
      for (ModuleDescriptor.Exports exports : descriptor.exports()) {
        (exports.isQualified() ? qualified : everyone).add(exports.source());
      }
    } else if (automaticName != null) {
      text.append("automatic module ").append(automaticName)
          .append(" (no module-info.class: every package is exported)\n");
      for (ClassFile type : classes) {
        everyone.add(packageOf(type.name()));
      }
    } else {
      throw new IllegalArgumentException(location + " has no module-info.class and no automatic module name was given");
    }
    text.append("\n## API: the packages exported to every module\n");
    text.append(render(classes, everyone));
    if (!qualified.isEmpty()) {
      text.append("\n## Driver SPI: the packages exported only to named modules (not API for users)\n");
      text.append(render(classes, qualified));
    }
    return text.toString();
  }

  private static String describe(ModuleDescriptor descriptor) {
    List<String> lines = new ArrayList<>();
    for (ModuleDescriptor.Requires requires : descriptor.requires()) {
      if (!requires.modifiers().contains(ModuleDescriptor.Requires.Modifier.MANDATED)) {
        lines.add("requires "
            + (requires.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC) ? "static " : "")
            + (requires.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE) ? "transitive " : "")
            + requires.name());
      }
    }
    for (ModuleDescriptor.Exports exports : descriptor.exports()) {
      lines.add("exports " + exports.source() + targets(exports.targets()));
    }
    for (ModuleDescriptor.Opens opens : descriptor.opens()) {
      lines.add("opens " + opens.source() + targets(opens.targets()));
    }
    for (String uses : descriptor.uses()) {
      lines.add("uses " + uses);
    }
    for (ModuleDescriptor.Provides provides : descriptor.provides()) {
      lines.add("provides " + provides.service() + " with " + String.join(", ", new TreeSet<>(provides.providers())));
    }
    lines.sort(Comparator.naturalOrder());
    StringBuilder text = new StringBuilder((descriptor.isOpen() ? "open " : "") + "module " + descriptor.name() + "\n");
    lines.forEach(line -> text.append("  ").append(line).append('\n'));
    return text.toString();
  }

  private static String targets(Set<String> targets) {
    return targets.isEmpty() ? "" : " to " + String.join(", ", new TreeSet<>(targets));
  }

  /**
   * The API of the public and protected types of the given packages among {@code classes}: a block per type
   * (its declaration, then its members indented), blocks sorted by the type's name and separated by a blank
   * line.
   *
   * @param classes the classes to choose from (any package)
   * @param packages the packages to render, with dots
   * @return the text, each line ending in {@code \n}; empty when no type qualifies
   */
  public static String render(List<ClassFile> classes, Set<String> packages) {
    Map<String, ClassFile> byName = new HashMap<>();
    classes.forEach(type -> byName.put(type.name(), type));
    Map<String, String> blocks = new TreeMap<>();
    for (ClassFile type : classes) {
      if (packages.contains(packageOf(type.name())) && visible(type, byName)) {
        blocks.put(sourceName(type.name()), block(type));
      }
    }
    return blocks.values().stream().map(block -> "\n" + block).collect(Collectors.joining());
  }

  /** Whether code outside the package can name the type: public, or protected in a class it can extend. */
  private static boolean visible(ClassFile type, Map<String, ClassFile> byName) {
    if ((type.access() & ACC_SYNTHETIC) != 0 || type.name().endsWith("package-info")) {
      return false;
    }
    ClassFile.Nesting nesting = type.nesting().get(type.name());
    if (!KotlinVisibility.of(type).typeIsApi()) {
      return false; // Kotlin's internal or private, public only in the class file
    }
    if (nesting == null) {
      return (type.access() & ACC_PUBLIC) != 0;
    }
    if (nesting.outer() == null) {
      return false; // local or anonymous
    }
    ClassFile outer = byName.get(nesting.outer());
    if (outer == null || !visible(outer, byName)) {
      return false;
    }
    return (nesting.access() & ACC_PUBLIC) != 0
        || ((nesting.access() & ACC_PROTECTED) != 0 && (modifiers(outer) & ACC_FINAL) == 0);
  }

  /** The class's modifiers as declared: a nested class's come from its InnerClasses entry. */
  private static int modifiers(ClassFile type) {
    ClassFile.Nesting nesting = type.nesting().get(type.name());
    return nesting != null && nesting.outer() != null ? nesting.access() : type.access();
  }

  private static String block(ClassFile type) {
    StringBuilder text = new StringBuilder(declaration(type)).append('\n');
    boolean extensible = (modifiers(type) & ACC_FINAL) == 0;
    boolean isInterface = (type.access() & ACC_INTERFACE) != 0;
    KotlinVisibility kotlin = KotlinVisibility.of(type);
    List<String[]> members = new ArrayList<>(); // sort key, line
    for (ClassFile.Member field : type.fields()) {
      if ((field.access() & ACC_SYNTHETIC) == 0 && member(field, extensible) && !kotlin.hides(field)) {
        members.add(new String[] {"0 " + field.name(), field(field)});
      }
    }
    for (ClassFile.Member method : type.methods()) {
      // Synthetic and bridge methods are compiler-made (lambda bodies, accessors, erasure bridges).
      if ((method.access() & (ACC_SYNTHETIC | ACC_BRIDGE)) == 0 && member(method, extensible)
          && !method.name().equals("<clinit>") && !kotlin.hides(method)) {
        String line = method(method, isInterface);
        members.add(new String[] {(method.name().equals("<init>") ? "1 " : "2 ") + method.name() + " " + line, line});
      }
    }
    members.sort(Comparator.comparing(member -> member[0]));
    members.forEach(member -> text.append("  ").append(member[1]).append('\n'));
    return text.toString();
  }

  private static boolean member(ClassFile.Member member, boolean extensible) {
    return (member.access() & ACC_PUBLIC) != 0 || ((member.access() & ACC_PROTECTED) != 0 && extensible);
  }

  private static String declaration(ClassFile type) {
    int access = modifiers(type);
    boolean isInterface = (type.access() & ACC_INTERFACE) != 0;
    boolean isEnum = (type.access() & ACC_ENUM) != 0;
    StringBuilder text = new StringBuilder();
    if (type.deprecated()) {
      text.append("@Deprecated ");
    }
    text.append(visibility(access));
    if ((access & ACC_STATIC) != 0) {
      text.append("static ");
    }
    if ((access & ACC_ABSTRACT) != 0 && !isInterface) {
      text.append("abstract ");
    }
    if ((access & ACC_FINAL) != 0) {
      text.append("final ");
    }
    boolean sealed = !type.permitted().isEmpty() && !isEnum; // an enum's constant bodies are its own affair
    if (sealed) {
      text.append("sealed ");
    }
    text.append((type.access() & ACC_ANNOTATION) != 0 ? "@interface"
        : isInterface ? "interface" : isEnum ? "enum" : type.record() ? "record" : "class");
    text.append(' ').append(sourceName(type.name()));
    String superclass;
    List<String> interfaces = new ArrayList<>();
    if (type.signature() != null) {
      Signature signature = new Signature(type.signature());
      text.append(signature.typeParameters());
      superclass = signature.type();
      while (!signature.atEnd()) {
        interfaces.add(signature.type());
      }
    } else {
      superclass = type.superName() == null ? null : sourceName(type.superName());
      type.interfaces().forEach(name -> interfaces.add(sourceName(name)));
    }
    if (isInterface) {
      if ((type.access() & ACC_ANNOTATION) != 0) {
        interfaces.remove("java.lang.annotation.Annotation");
      }
      if (!interfaces.isEmpty()) {
        text.append(" extends ").append(String.join(", ", interfaces));
      }
    } else {
      if (superclass != null) {
        text.append(" extends ").append(superclass);
      }
      if (!interfaces.isEmpty()) {
        text.append(" implements ").append(String.join(", ", interfaces));
      }
    }
    if (sealed) {
      text.append(" permits ").append(
          type.permitted().stream().map(ApiDump::sourceName).sorted().collect(Collectors.joining(", ")));
    }
    return text.toString();
  }

  private static String field(ClassFile.Member field) {
    StringBuilder text = new StringBuilder();
    if (field.deprecated()) {
      text.append("@Deprecated ");
    }
    text.append(visibility(field.access()));
    if ((field.access() & ACC_STATIC) != 0) {
      text.append("static ");
    }
    if ((field.access() & ACC_FINAL) != 0) {
      text.append("final ");
    }
    if ((field.access() & ACC_ENUM) != 0) {
      text.append("enum constant ");
    }
    text.append(new Signature(field.signature() != null ? field.signature() : field.descriptor()).type())
        .append(' ').append(field.name());
    if (field.constant() != null) {
      text.append(" = ").append(literal(field.descriptor(), field.constant()));
    }
    return text.toString();
  }

  private static String method(ClassFile.Member method, boolean inInterface) {
    int access = method.access();
    StringBuilder text = new StringBuilder();
    if (method.deprecated()) {
      text.append("@Deprecated ");
    }
    text.append(visibility(access));
    if ((access & ACC_STATIC) != 0) {
      text.append("static ");
    }
    if (inInterface && (access & (ACC_STATIC | ACC_ABSTRACT)) == 0 && (access & ACC_PUBLIC) != 0) {
      text.append("default ");
    }
    if ((access & ACC_ABSTRACT) != 0) {
      text.append("abstract ");
    }
    if ((access & ACC_FINAL) != 0) {
      text.append("final ");
    }
    Signature signature = new Signature(method.signature() != null ? method.signature() : method.descriptor());
    String typeParameters = signature.typeParameters();
    if (!typeParameters.isEmpty()) {
      text.append(typeParameters).append(' ');
    }
    List<String> parameters = signature.parameters();
    String result = signature.type();
    List<String> exceptions = new ArrayList<>();
    while (signature.atThrows()) {
      exceptions.add(signature.type());
    }
    if (exceptions.isEmpty()) {
      method.exceptions().forEach(name -> exceptions.add(sourceName(name)));
    }
    if ((access & ACC_VARARGS) != 0 && !parameters.isEmpty()) {
      String last = parameters.remove(parameters.size() - 1);
      parameters.add(last.substring(0, last.length() - 2) + "...");
    }
    if (!method.name().equals("<init>")) {
      text.append(result).append(' ');
    }
    text.append(method.name()).append('(').append(String.join(", ", parameters)).append(')');
    if (!exceptions.isEmpty()) {
      text.append(" throws ").append(String.join(", ", exceptions));
    }
    return text.toString();
  }

  private static String visibility(int access) {
    return (access & ACC_PUBLIC) != 0 ? "public " : (access & ACC_PROTECTED) != 0 ? "protected " : "";
  }

  /** A constant as a Java literal, by the field's descriptor; the same text on every JDK. */
  static String literal(String descriptor, Object value) {
    return switch (descriptor) {
      case "Z" -> ((Integer) value) != 0 ? "true" : "false";
      case "C" -> "'" + escape(String.valueOf((char) (int) (Integer) value), '\'') + "'";
      case "J" -> value + "L";
      case "F" -> decimal((Float) value, "Float") + (Float.isFinite((Float) value) ? "f" : "");
      case "D" -> decimal((Double) value, "Double");
      case "Ljava/lang/String;" -> "\"" + escape((String) value, '"') + "\"";
      default -> String.valueOf(value); // B, S, I
    };
  }

  /**
   * The shortest decimal that reads back as the same float or double. Not {@code Double.toString}, whose
   * digits for some values changed in JDK 19; this one is computed here, so it is the same on every JDK.
   */
  private static String decimal(double value, String type) {
    if (Double.isNaN(value)) {
      return type + ".NaN";
    }
    if (Double.isInfinite(value)) {
      return type + (value > 0 ? ".POSITIVE_INFINITY" : ".NEGATIVE_INFINITY");
    }
    if (value == 0) {
      return 1 / value < 0 ? "-0.0" : "0.0";
    }
    boolean isFloat = type.equals("Float");
    BigDecimal exact = new BigDecimal(value);
    for (int digits = 1; ; digits++) {
      BigDecimal rounded = exact.round(new MathContext(digits));
      boolean same = isFloat ? rounded.floatValue() == (float) value : rounded.doubleValue() == value;
      if (same) {
        String plain = rounded.stripTrailingZeros().toString();
        return plain.contains(".") || plain.contains("E") ? plain : plain + ".0";
      }
    }
  }

  private static String escape(String text, char quote) {
    StringBuilder out = new StringBuilder();
    for (char c : text.toCharArray()) {
      if (c == quote || c == '\\') {
        out.append('\\').append(c);
      } else if (c == '\n') {
        out.append("\\n");
      } else if (c == '\t') {
        out.append("\\t");
      } else if (c == '\r') {
        out.append("\\r");
      } else if (c >= 0x20 && c < 0x7f) {
        out.append(c);
      } else {
        out.append(String.format("\\u%04x", (int) c));
      }
    }
    return out.toString();
  }

  static String packageOf(String binaryName) {
    int slash = binaryName.lastIndexOf('/');
    return slash < 0 ? "" : binaryName.substring(0, slash).replace('/', '.');
  }

  /** {@code dev/backoff/RetryPolicy$Builder} as {@code dev.backoff.RetryPolicy.Builder}. */
  static String sourceName(String binaryName) {
    return binaryName.replace('/', '.').replace('$', '.');
  }

  /** Every {@code .class} file under a directory or in a jar, by its path with slashes. */
  static Map<String, byte[]> classFiles(Path location) throws IOException {
    Map<String, byte[]> files = new TreeMap<>();
    if (Files.isDirectory(location)) {
      try (Stream<Path> paths = Files.walk(location)) {
        for (Path path : (Iterable<Path>) paths.filter(isClassFile())::iterator) {
          files.put(location.relativize(path).toString().replace('\\', '/'), Files.readAllBytes(path));
        }
      }
    } else {
      try (ZipFile jar = new ZipFile(location.toFile())) {
        for (Enumeration<? extends ZipEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
          ZipEntry entry = entries.nextElement();
          if (entry.getName().endsWith(".class") && !entry.getName().startsWith("META-INF/")) {
            try (InputStream in = jar.getInputStream(entry)) {
              files.put(entry.getName(), in.readAllBytes());
            }
          }
        }
      }
    }
    return files;
  }

  private static Predicate<Path> isClassFile() {
    return path -> path.getFileName().toString().endsWith(".class") && Files.isRegularFile(path)
        && !path.toString().replace('\\', '/').contains("/META-INF/");
  }

  /**
   * A cursor over a generic signature or an erased descriptor (JVM specification 4.7.9.1), rendering each
   * type as Java source writes it.
   */
  static final class Signature {
    private final String text;
    private int at;

    Signature(String text) {
      this.text = text;
    }

    boolean atEnd() {
      return at >= text.length();
    }

    boolean atThrows() {
      if (!atEnd() && text.charAt(at) == '^') {
        at++;
        return true;
      }
      return false;
    }

    /** {@code <T extends Bound, U>}, or empty when there are none. */
    String typeParameters() {
      if (atEnd() || text.charAt(at) != '<') {
        return "";
      }
      at++;
      List<String> parameters = new ArrayList<>();
      while (text.charAt(at) != '>') {
        int colon = text.indexOf(':', at);
        String name = text.substring(at, colon);
        at = colon;
        List<String> bounds = new ArrayList<>();
        while (text.charAt(at) == ':') {
          at++;
          if (text.charAt(at) != ':') { // an empty class bound is followed at once by an interface bound
            bounds.add(type());
          }
        }
        bounds.remove("java.lang.Object");
        parameters.add(bounds.isEmpty() ? name : name + " extends " + String.join(" & ", bounds));
      }
      at++;
      return "<" + String.join(", ", parameters) + ">";
    }

    /** The parameter types of a method signature, leaving the cursor on its result type. */
    List<String> parameters() {
      if (text.charAt(at) != '(') {
        throw new IllegalArgumentException("not a method signature at " + at + ": " + text);
      }
      at++;
      List<String> parameters = new ArrayList<>();
      while (text.charAt(at) != ')') {
        parameters.add(type());
      }
      at++;
      return parameters;
    }

    /** The next type. */
    String type() {
      char c = text.charAt(at++);
      return switch (c) {
        case 'B' -> "byte";
        case 'C' -> "char";
        case 'D' -> "double";
        case 'F' -> "float";
        case 'I' -> "int";
        case 'J' -> "long";
        case 'S' -> "short";
        case 'Z' -> "boolean";
        case 'V' -> "void";
        case '[' -> type() + "[]";
        case 'T' -> {
          int end = text.indexOf(';', at);
          String name = text.substring(at, end);
          at = end + 1;
          yield name;
        }
        case 'L' -> classType();
        default -> throw new IllegalArgumentException("unexpected '" + c + "' at " + (at - 1) + " in " + text);
      };
    }

    private String classType() {
      StringBuilder name = new StringBuilder();
      while (true) {
        char c = text.charAt(at++);
        switch (c) {
          case ';':
            return name.toString();
          case '<':
            name.append('<').append(typeArguments()).append('>');
            break;
          case '/', '$', '.':
            name.append('.');
            break;
          default:
            name.append(c);
        }
      }
    }

    private String typeArguments() {
      List<String> arguments = new ArrayList<>();
      while (text.charAt(at) != '>') {
        char c = text.charAt(at);
        if (c == '*') {
          at++;
          arguments.add("?");
        } else if (c == '+') {
          at++;
          arguments.add("? extends " + type());
        } else if (c == '-') {
          at++;
          arguments.add("? super " + type());
        } else {
          arguments.add(type());
        }
      }
      at++;
      return String.join(", ", arguments);
    }
  }
}
