package io.servicehooks.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A text dump of a module's public API, compared with the one committed beside its {@code pom.xml}
 * in {@code api/<module>.api}, as OkHttp and Kotlin's binary-compatibility validator do. The dump
 * lists every public type (and public or protected nested type of one), its supertypes, and its
 * public or protected constructors, methods and fields, with the values of constants; sorted, one
 * line a member, so that a diff shows what changed.
 *
 * <p>A module's {@code ApiDumpTest} calls {@link #check(String)} in {@code verify}. After a
 * deliberate change, regenerate every module's dump with one command from the repository root:
 *
 * <pre>
 * ./mvnw -q test -Dtest=ApiDumpTest -Dsurefire.failIfNoSpecifiedTests=false -Dservicehooks.api.update=true
 * </pre>
 *
 * and commit the {@code api/*.api} files with the change.
 */
public final class ApiDump {

  /** The system property that makes {@link #check} rewrite the dump instead of comparing. */
  public static final String UPDATE_PROPERTY = "servicehooks.api.update";

  /** The command that regenerates every module's dump, quoted in failure messages. */
  public static final String UPDATE_COMMAND =
      "./mvnw -q test -Dtest=ApiDumpTest -Dsurefire.failIfNoSpecifiedTests=false -D"
          + UPDATE_PROPERTY
          + "=true";

  private ApiDump() {}

  /**
   * Compares the API of the classes in {@code target/classes} with {@code api/<module>.api} (paths
   * relative to the module's directory, where Surefire runs), or rewrites that file when {@code
   * -Dservicehooks.api.update=true} is given.
   *
   * @throws AssertionError naming each added and removed line, and the command to regenerate
   */
  public static void check(String module) {
    Path committed = Path.of("api", module + ".api");
    String actual = dump(Path.of("target", "classes"));
    try {
      if (Boolean.getBoolean(UPDATE_PROPERTY)) {
        Files.createDirectories(committed.getParent());
        Files.writeString(committed, actual, StandardCharsets.UTF_8);
        return;
      }
      if (!Files.exists(committed)) {
        throw new AssertionError(
            module
                + " has no committed API dump at "
                + module
                + "/"
                + committed
                + ". Create it with: "
                + UPDATE_COMMAND);
      }
      String expected = Files.readString(committed, StandardCharsets.UTF_8);
      if (!expected.equals(actual)) {
        throw new AssertionError(diffMessage(module, committed, expected, actual));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The API dump of the classes below {@code classesDir}, loaded without initialising them. */
  public static String dump(Path classesDir) {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    TreeMap<String, List<String>> types = new TreeMap<>();
    for (String name : classNames(classesDir)) {
      Class<?> type;
      try {
        type = Class.forName(name, false, loader);
      } catch (ClassNotFoundException e) {
        throw new IllegalStateException(name + " is in " + classesDir + " but does not load", e);
      }
      if (visible(type)) {
        types.put(type.getName(), describe(type));
      }
    }
    StringBuilder out = new StringBuilder();
    types.values().forEach(lines -> lines.forEach(line -> out.append(line).append('\n')));
    return out.toString();
  }

  private static List<String> classNames(Path classesDir) {
    if (!Files.isDirectory(classesDir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(classesDir)) {
      return files
          .filter(p -> p.toString().endsWith(".class"))
          .map(classesDir::relativize)
          .map(Path::toString)
          .filter(n -> !n.endsWith("module-info.class") && !n.endsWith("package-info.class"))
          .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.'))
          .map(n -> n.replace('\\', '.'))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Public, and every enclosing type public too (or protected in a public one). */
  private static boolean visible(Class<?> type) {
    if (type.isSynthetic() || type.isAnonymousClass() || type.isLocalClass()) {
      return false;
    }
    for (Class<?> t = type; t != null; t = t.getDeclaringClass()) {
      int m = t.getModifiers();
      boolean ok =
          Modifier.isPublic(m) || (t.getDeclaringClass() != null && Modifier.isProtected(m));
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  private static List<String> describe(Class<?> type) {
    List<String> lines = new ArrayList<>();
    lines.add(header(type) + " {");
    Set<String> members = new java.util.TreeSet<>();
    boolean extensible = !Modifier.isFinal(type.getModifiers());
    for (Field f : type.getDeclaredFields()) {
      if (exposed(f.getModifiers(), extensible) && !f.isSynthetic()) {
        members.add(field(f));
      }
    }
    if (!type.isEnum() && !type.isInterface()) {
      for (Constructor<?> c : type.getDeclaredConstructors()) {
        if (exposed(c.getModifiers(), extensible) && !c.isSynthetic()) {
          members.add(executable(c, "<init>", null));
        }
      }
    }
    for (Method m : type.getDeclaredMethods()) {
      if (exposed(m.getModifiers(), extensible) && !m.isSynthetic() && !m.isBridge()) {
        if (type.isEnum() && isEnumBoilerplate(m)) {
          continue;
        }
        members.add(executable(m, m.getName(), m.getGenericReturnType()));
      }
    }
    members.forEach(member -> lines.add("  " + member));
    lines.add("}");
    return lines;
  }

  private static boolean exposed(int modifiers, boolean extensible) {
    return Modifier.isPublic(modifiers) || (extensible && Modifier.isProtected(modifiers));
  }

  private static boolean isEnumBoilerplate(Method m) {
    return Modifier.isStatic(m.getModifiers())
        && ((m.getName().equals("values") && m.getParameterCount() == 0)
            || (m.getName().equals("valueOf") && m.getParameterCount() == 1));
  }

  private static String header(Class<?> type) {
    int mods = type.getModifiers();
    String kind;
    if (type.isAnnotation()) {
      kind = "@interface";
      mods &= ~(Modifier.ABSTRACT | Modifier.INTERFACE);
    } else if (type.isInterface()) {
      kind = "interface";
      mods &= ~(Modifier.ABSTRACT | Modifier.INTERFACE);
    } else if (type.isEnum()) {
      kind = "enum";
      mods &= ~(Modifier.FINAL | Modifier.ABSTRACT);
    } else if (type.isRecord()) {
      kind = "record";
      mods &= ~Modifier.FINAL;
    } else {
      kind = "class";
    }
    mods &= ~Modifier.STATIC; // a nested type's static is not part of what users see
    StringBuilder h = new StringBuilder();
    String m = Modifier.toString(mods);
    if (!m.isEmpty()) {
      h.append(m).append(' ');
    }
    if (type.isSealed()) {
      h.append("sealed ");
    }
    h.append(kind).append(' ').append(type.getName().replace('$', '.'));
    if (type.getTypeParameters().length > 0) {
      h.append(
          Arrays.stream(type.getTypeParameters())
              .map(ApiDump::typeVariable)
              .collect(Collectors.joining(", ", "<", ">")));
    }
    Type superclass = type.getGenericSuperclass();
    if (superclass != null
        && superclass != Object.class
        && superclass != Record.class
        && !type.isEnum()) {
      h.append(" extends ").append(name(superclass));
    }
    Set<String> interfaces = new LinkedHashSet<>();
    for (Type i : type.getGenericInterfaces()) {
      interfaces.add(name(i));
    }
    if (!interfaces.isEmpty()) {
      h.append(type.isInterface() ? " extends " : " implements ")
          .append(String.join(", ", interfaces));
    }
    return h.toString();
  }

  private static String typeVariable(java.lang.reflect.TypeVariable<?> v) {
    List<String> bounds =
        Arrays.stream(v.getBounds()).filter(b -> b != Object.class).map(ApiDump::name).toList();
    return bounds.isEmpty() ? v.getName() : v.getName() + " extends " + String.join(" & ", bounds);
  }

  private static String field(Field f) {
    StringBuilder s = new StringBuilder();
    s.append(Modifier.toString(f.getModifiers() & ~Modifier.TRANSIENT & ~Modifier.VOLATILE))
        .append(' ')
        .append(name(f.getGenericType()))
        .append(' ')
        .append(f.getName());
    if (Modifier.isStatic(f.getModifiers())
        && Modifier.isFinal(f.getModifiers())
        && (f.getType().isPrimitive() || f.getType() == String.class)) {
      try {
        f.setAccessible(true);
        Object value = f.get(null);
        s.append(" = ")
            .append(value instanceof String str ? '"' + str.replace("\"", "\\\"") + '"' : value);
      } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
        // A constant computed at class initialisation: its type is the contract, not its value.
      }
    }
    return s.toString();
  }

  private static String executable(Executable e, String name, Type returnType) {
    int mods = e.getModifiers();
    if (e.getDeclaringClass().isInterface()) {
      mods &= ~Modifier.ABSTRACT;
    }
    StringBuilder s = new StringBuilder();
    String m = Modifier.toString(mods & ~Modifier.TRANSIENT & ~Modifier.SYNCHRONIZED);
    s.append(m);
    if (e instanceof Method method && method.isDefault()) {
      s.append(" default");
    }
    if (e.getTypeParameters().length > 0) {
      s.append(' ')
          .append(
              Arrays.stream(e.getTypeParameters())
                  .map(ApiDump::typeVariable)
                  .collect(Collectors.joining(", ", "<", ">")));
    }
    if (returnType != null) {
      s.append(' ').append(name(returnType));
    }
    s.append(' ').append(name);
    Type[] params = e.getGenericParameterTypes();
    if (e instanceof Constructor<?> && params.length != e.getParameterCount()) {
      params = e.getParameterTypes(); // inner-class constructors: generic info is partial
    }
    String joined = Arrays.stream(params).map(ApiDump::name).collect(Collectors.joining(", "));
    if (e.isVarArgs()) {
      joined = joined.substring(0, joined.length() - 2) + "...";
    }
    s.append('(').append(joined).append(')');
    Type[] thrown = e.getGenericExceptionTypes();
    if (thrown.length > 0) {
      s.append(" throws ")
          .append(Arrays.stream(thrown).map(ApiDump::name).collect(Collectors.joining(", ")));
    }
    return s.toString().trim();
  }

  private static String name(Type t) {
    return t.getTypeName().replace('$', '.');
  }

  private static String diffMessage(String module, Path file, String expected, String actual) {
    List<String> before = expected.lines().toList();
    List<String> after = actual.lines().toList();
    Set<String> beforeSet = new LinkedHashSet<>(before);
    Set<String> afterSet = new LinkedHashSet<>(after);
    StringBuilder msg = new StringBuilder();
    msg.append("The public API of ")
        .append(module)
        .append(" differs from ")
        .append(module)
        .append('/')
        .append(file.toString().replace('\\', '/'))
        .append(".\n");
    for (String line : after) {
      if (!beforeSet.contains(line)) {
        msg.append("  + ").append(line.strip()).append('\n');
      }
    }
    for (String line : before) {
      if (!afterSet.contains(line)) {
        msg.append("  - ").append(line.strip()).append('\n');
      }
    }
    msg.append(
            "If the change is meant (and the new types are ones users need: otherwise make them"
                + " package-private), regenerate every module's dump from the repository root"
                + " with:\n  ")
        .append(UPDATE_COMMAND)
        .append("\nand commit ")
        .append(module)
        .append('/')
        .append(file.toString().replace('\\', '/'))
        .append('.');
    return msg.toString();
  }
}
