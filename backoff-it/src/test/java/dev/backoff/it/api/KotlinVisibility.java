package dev.backoff.it.api;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import kotlin.Metadata;
import kotlin.metadata.Attributes;
import kotlin.metadata.KmClass;
import kotlin.metadata.KmConstructor;
import kotlin.metadata.KmFunction;
import kotlin.metadata.KmPackage;
import kotlin.metadata.KmProperty;
import kotlin.metadata.Visibility;
import kotlin.metadata.jvm.JvmExtensionsKt;
import kotlin.metadata.jvm.JvmMemberSignature;
import kotlin.metadata.jvm.JvmMetadataUtil;
import kotlin.metadata.jvm.KotlinClassMetadata;

/**
 * What Kotlin's own visibility says about a class compiled from Kotlin. Kotlin's {@code internal} (and a
 * file's {@code private} top-level classes) compile to public JVM classes and members, so the class file's
 * flags alone would count them as API; the class's {@code @kotlin.Metadata} says what they were declared
 * as. An {@code internal} declaration marked {@code @PublishedApi} stays API (inline functions call it).
 */
final class KotlinVisibility {
  /** For a class that is not Kotlin's: nothing hidden. */
  static final KotlinVisibility NONE = new KotlinVisibility(true, Set.of());

  private final boolean typeIsApi;
  private final Set<String> hiddenMembers;

  private KotlinVisibility(boolean typeIsApi, Set<String> hiddenMembers) {
    this.typeIsApi = typeIsApi;
    this.hiddenMembers = hiddenMembers;
  }

  /**
   * Reads a class's Kotlin metadata.
   *
   * @param type the class, not null
   * @return its Kotlin visibility, or {@link #NONE} when it was not compiled from Kotlin
   */
  static KotlinVisibility of(ClassFile type) {
    Map<String, Object> values = type.kotlin();
    if (values == null) {
      return NONE;
    }
    Metadata metadata = JvmMetadataUtil.Metadata((Integer) values.get("k"), ints(values.get("mv")),
        strings(values.get("d1")), strings(values.get("d2")), (String) values.get("xs"),
        (String) values.get("pn"), (Integer) values.get("xi"));
    KotlinClassMetadata kotlin = KotlinClassMetadata.readLenient(metadata);
    Set<String> hidden = new HashSet<>();
    if (kotlin instanceof KotlinClassMetadata.Class declared) {
      KmClass kmClass = declared.getKmClass();
      for (KmConstructor constructor : kmClass.getConstructors()) {
        hideUnlessApi(hidden, Attributes.getVisibility(constructor), JvmExtensionsKt.getSignature(constructor));
      }
      hideMembers(hidden, kmClass.getFunctions(), kmClass.getProperties());
      boolean api = isApi(Attributes.getVisibility(kmClass)) || type.annotations().contains(PUBLISHED_API);
      return new KotlinVisibility(api, Set.copyOf(hidden));
    }
    if (kotlin instanceof KotlinClassMetadata.FileFacade facade) {
      KmPackage kmPackage = facade.getKmPackage();
      hideMembers(hidden, kmPackage.getFunctions(), kmPackage.getProperties());
      return new KotlinVisibility(true, Set.copyOf(hidden));
    }
    if (kotlin instanceof KotlinClassMetadata.MultiFileClassPart part) {
      KmPackage kmPackage = part.getKmPackage();
      hideMembers(hidden, kmPackage.getFunctions(), kmPackage.getProperties());
      return new KotlinVisibility(true, Set.copyOf(hidden));
    }
    if (kotlin instanceof KotlinClassMetadata.SyntheticClass) {
      return new KotlinVisibility(false, Set.of()); // a lambda's or a when-mapping's class
    }
    return NONE;
  }

  private static final String PUBLISHED_API = "Lkotlin/PublishedApi;";

  /** Whether Kotlin declared the type as API (public or protected); true for a class not from Kotlin. */
  boolean typeIsApi() {
    return typeIsApi;
  }

  /**
   * Whether the member belongs to a Kotlin declaration that is not API (internal, private), unless it is
   * {@code @PublishedApi}.
   */
  boolean hides(ClassFile.Member member) {
    String key = member.descriptor().startsWith("(") ? member.name() + member.descriptor()
        : member.name() + ":" + member.descriptor();
    return hiddenMembers.contains(key) && !member.annotations().contains(PUBLISHED_API);
  }

  private static void hideMembers(Set<String> hidden, List<KmFunction> functions, List<KmProperty> properties) {
    for (KmFunction function : functions) {
      hideUnlessApi(hidden, Attributes.getVisibility(function), JvmExtensionsKt.getSignature(function));
    }
    for (KmProperty property : properties) {
      Visibility visibility = Attributes.getVisibility(property);
      hideUnlessApi(hidden, visibility, JvmExtensionsKt.getFieldSignature(property));
      hideUnlessApi(hidden, visibility, JvmExtensionsKt.getGetterSignature(property));
      Visibility setter = property.getSetter() == null ? visibility
          : Attributes.getVisibility(property.getSetter());
      hideUnlessApi(hidden, isApi(visibility) ? setter : visibility, JvmExtensionsKt.getSetterSignature(property));
    }
  }

  private static void hideUnlessApi(Set<String> hidden, Visibility visibility, JvmMemberSignature signature) {
    if (signature != null && !isApi(visibility)) {
      hidden.add(signature.toString());
    }
  }

  private static boolean isApi(Visibility visibility) {
    return visibility == Visibility.PUBLIC || visibility == Visibility.PROTECTED;
  }

  private static int[] ints(Object list) {
    return list == null ? null : ((List<?>) list).stream().mapToInt(value -> (Integer) value).toArray();
  }

  private static String[] strings(Object list) {
    return list == null ? null : ((List<?>) list).stream().map(value -> (String) value).toArray(String[]::new);
  }
}
