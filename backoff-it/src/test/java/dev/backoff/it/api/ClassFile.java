package dev.backoff.it.api;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The parts of one class file that make up its API, read straight from the bytes: names, access flags,
 * generic signatures, thrown exceptions, constant values, nesting, permitted subclasses, annotations (such as
 * {@code @Deprecated}) and a Kotlin class's metadata.
 * Nothing is loaded or initialised, so a class whose signatures name a library that is absent (an optional
 * dependency) reads as well as any other, and the result depends on the class file alone, never on the JVM
 * that reads it.
 *
 * @param name the binary name with slashes ({@code dev/backoff/RetryPolicy$Builder})
 * @param access the class's access flags ({@code ACC_*} of the JVM specification, 4.1)
 * @param superName the superclass's binary name, or {@code null} for {@code java/lang/Object} itself
 * @param interfaces the direct superinterfaces' binary names, in declaration order
 * @param signature the generic signature, or {@code null} when the class has none
 * @param permitted the permitted subclasses of a sealed class (empty when not sealed)
 * @param annotations the descriptors of the class's annotations kept in the class file, visible at run time
 *     or not ({@code Ljava/lang/Deprecated;}, {@code Lkotlin/PublishedApi;}...)
 * @param record whether the class is a record
 * @param fields the declared fields, in class-file order
 * @param methods the declared methods and constructors, in class-file order
 * @param nesting the {@code InnerClasses} entries by the inner class's binary name
 * @param kotlin the values of a Kotlin class's {@code @kotlin.Metadata} annotation by element name
 *     ({@code k}, {@code mv}, {@code d1}...: {@code Integer}, {@code String} or a {@code List} of them), or
 *     {@code null} when the class was not compiled from Kotlin
 */
record ClassFile(String name, int access, String superName, List<String> interfaces, String signature,
    List<String> permitted, Set<String> annotations, boolean record, List<Member> fields, List<Member> methods,
    Map<String, Nesting> nesting, Map<String, Object> kotlin) {

  static final int ACC_PUBLIC = 0x0001;
  static final int ACC_PRIVATE = 0x0002;
  static final int ACC_PROTECTED = 0x0004;
  static final int ACC_STATIC = 0x0008;
  static final int ACC_FINAL = 0x0010;
  static final int ACC_BRIDGE = 0x0040;
  static final int ACC_VARARGS = 0x0080;
  static final int ACC_INTERFACE = 0x0200;
  static final int ACC_ABSTRACT = 0x0400;
  static final int ACC_SYNTHETIC = 0x1000;
  static final int ACC_ANNOTATION = 0x2000;
  static final int ACC_ENUM = 0x4000;

  /**
   * A field, method or constructor ({@code <init>}).
   *
   * @param access its access flags
   * @param name its name
   * @param descriptor its erased descriptor
   * @param signature its generic signature, or {@code null}
   * @param exceptions the classes of its {@code Exceptions} attribute (methods), in declaration order
   * @param constant a field's {@code ConstantValue} ({@code Integer}, {@code Long}, {@code Float},
   *     {@code Double} or {@code String}), or {@code null}
   * @param annotations the descriptors of its annotations kept in the class file
   */
  record Member(int access, String name, String descriptor, String signature, List<String> exceptions,
      Object constant, Set<String> annotations) {
    /** Whether it is annotated {@code @Deprecated}. */
    boolean deprecated() {
      return annotations.contains("Ljava/lang/Deprecated;");
    }
  }

  /** Whether the class is annotated {@code @Deprecated}. */
  boolean deprecated() {
    return annotations.contains("Ljava/lang/Deprecated;");
  }

  /**
   * One {@code InnerClasses} entry.
   *
   * @param outer the enclosing class's binary name, or {@code null} for a local or anonymous class
   * @param access the nested class's access flags as declared in source ({@code static}, {@code protected}...)
   */
  record Nesting(String outer, int access) {}

  /**
   * Reads a class file.
   *
   * @param bytes the class file's bytes, not null
   * @return its API-relevant parts
   * @throws IOException if the bytes are not a class file (the message says what was wrong)
   */
  static ClassFile read(byte[] bytes) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
    if (in.readInt() != 0xCAFEBABE) {
      throw new IOException("not a class file: bad magic number");
    }
    in.readUnsignedShort(); // minor version
    in.readUnsignedShort(); // major version
    Object[] pool = readPool(in);
    int access = in.readUnsignedShort();
    String name = className(pool, in.readUnsignedShort());
    String superName = className(pool, in.readUnsignedShort());
    List<String> interfaces = new ArrayList<>();
    for (int i = in.readUnsignedShort(); i > 0; i--) {
      interfaces.add(className(pool, in.readUnsignedShort()));
    }
    List<Member> fields = readMembers(in, pool);
    List<Member> methods = readMembers(in, pool);
    String signature = null;
    List<String> permitted = new ArrayList<>();
    Set<String> annotations = new HashSet<>();
    boolean record = false;
    Map<String, Nesting> nesting = new HashMap<>();
    Map<String, Object> kotlin = null;
    for (int i = in.readUnsignedShort(); i > 0; i--) {
      String attribute = (String) pool[in.readUnsignedShort()];
      int length = in.readInt();
      switch (attribute) {
        case "Signature" -> signature = (String) pool[in.readUnsignedShort()];
        case "Deprecated" -> annotations.add("Ljava/lang/Deprecated;"); // as Kotlin marks deprecation
        case "Record" -> {
          record = true;
          in.skipNBytes(length);
        }
        case "RuntimeVisibleAnnotations", "RuntimeInvisibleAnnotations" -> {
          for (int n = in.readUnsignedShort(); n > 0; n--) {
            Map<String, Object> values = new HashMap<>();
            String type = readAnnotation(in, pool, values);
            annotations.add(type);
            if (type.equals("Lkotlin/Metadata;")) {
              kotlin = Map.copyOf(values);
            }
          }
        }
        case "PermittedSubclasses" -> {
          for (int n = in.readUnsignedShort(); n > 0; n--) {
            permitted.add(className(pool, in.readUnsignedShort()));
          }
        }
        case "InnerClasses" -> {
          for (int n = in.readUnsignedShort(); n > 0; n--) {
            String inner = className(pool, in.readUnsignedShort());
            String outer = className(pool, in.readUnsignedShort());
            in.readUnsignedShort(); // simple name
            nesting.put(inner, new Nesting(outer, in.readUnsignedShort()));
          }
        }
        default -> in.skipNBytes(length);
      }
    }
    return new ClassFile(name, access, superName, List.copyOf(interfaces), signature, List.copyOf(permitted),
        Set.copyOf(annotations), record, fields, methods, Map.copyOf(nesting), kotlin);
  }

  private static Object[] readPool(DataInputStream in) throws IOException {
    int count = in.readUnsignedShort();
    Object[] pool = new Object[count];
    int[] classNameIndex = new int[count];
    for (int i = 1; i < count; i++) {
      int tag = in.readUnsignedByte();
      switch (tag) {
        case 1 -> pool[i] = in.readUTF();
        case 3 -> pool[i] = in.readInt();
        case 4 -> pool[i] = in.readFloat();
        case 5 -> pool[i++] = in.readLong(); // takes two entries
        case 6 -> pool[i++] = in.readDouble();
        case 7 -> classNameIndex[i] = in.readUnsignedShort();
        case 8 -> pool[i] = new StringRef(in.readUnsignedShort());
        case 16, 19, 20 -> in.readUnsignedShort(); // MethodType, Module, Package
        case 15 -> in.skipNBytes(3); // MethodHandle
        case 9, 10, 11, 12, 17, 18 -> in.readInt(); // member refs, NameAndType, (Invoke)Dynamic
        default -> throw new IOException("not a class file: constant pool tag " + tag + " at entry " + i);
      }
    }
    for (int i = 1; i < count; i++) {
      if (classNameIndex[i] != 0) {
        pool[i] = new ClassRef((String) pool[classNameIndex[i]]);
      } else if (pool[i] instanceof StringRef ref) {
        pool[i] = pool[ref.index()];
      }
    }
    return pool;
  }

  private record ClassRef(String name) {}

  private record StringRef(int index) {}

  private static String className(Object[] pool, int index) {
    return index == 0 ? null : ((ClassRef) pool[index]).name();
  }

  private static List<Member> readMembers(DataInputStream in, Object[] pool) throws IOException {
    List<Member> members = new ArrayList<>();
    for (int i = in.readUnsignedShort(); i > 0; i--) {
      int access = in.readUnsignedShort();
      String name = (String) pool[in.readUnsignedShort()];
      String descriptor = (String) pool[in.readUnsignedShort()];
      String signature = null;
      List<String> exceptions = new ArrayList<>();
      Object constant = null;
      Set<String> annotations = new HashSet<>();
      for (int n = in.readUnsignedShort(); n > 0; n--) {
        String attribute = (String) pool[in.readUnsignedShort()];
        int length = in.readInt();
        switch (attribute) {
          case "Signature" -> signature = (String) pool[in.readUnsignedShort()];
          case "ConstantValue" -> constant = pool[in.readUnsignedShort()];
          case "Deprecated" -> annotations.add("Ljava/lang/Deprecated;");
          case "RuntimeVisibleAnnotations", "RuntimeInvisibleAnnotations" -> {
            for (int a = in.readUnsignedShort(); a > 0; a--) {
              annotations.add(readAnnotation(in, pool, new HashMap<>()));
            }
          }
          case "Exceptions" -> {
            for (int e = in.readUnsignedShort(); e > 0; e--) {
              exceptions.add(className(pool, in.readUnsignedShort()));
            }
          }
          default -> in.skipNBytes(length);
        }
      }
      members.add(new Member(access, name, descriptor, signature, List.copyOf(exceptions), constant,
          Set.copyOf(annotations)));
    }
    return members;
  }

  /** Reads one annotation into {@code values} (constants, and lists of them), returning its type. */
  private static String readAnnotation(DataInputStream in, Object[] pool, Map<String, Object> values)
      throws IOException {
    String type = (String) pool[in.readUnsignedShort()];
    for (int pairs = in.readUnsignedShort(); pairs > 0; pairs--) {
      String element = (String) pool[in.readUnsignedShort()];
      Object value = readElementValue(in, pool);
      if (value != null) {
        values.put(element, value);
      }
    }
    return type;
  }

  /** A constant (as the pool holds it) or a list of them; {@code null} for enums, classes and annotations. */
  private static Object readElementValue(DataInputStream in, Object[] pool) throws IOException {
    int tag = in.readUnsignedByte();
    switch (tag) {
      case 'B', 'C', 'D', 'F', 'I', 'J', 'S', 'Z', 's':
        return pool[in.readUnsignedShort()];
      case 'c':
        in.readUnsignedShort();
        return null;
      case 'e':
        in.readInt();
        return null;
      case '@':
        readAnnotation(in, pool, new HashMap<>());
        return null;
      case '[':
        List<Object> list = new ArrayList<>();
        for (int n = in.readUnsignedShort(); n > 0; n--) {
          list.add(readElementValue(in, pool));
        }
        return list;
      default:
        throw new IOException("not a class file: annotation element tag " + (char) tag);
    }
  }
}
