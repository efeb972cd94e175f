package io.servicehooks.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
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
 *
 * <p>This class finds the public types and compares or rewrites the file; {@link ApiSignatures}
 * writes the lines of one type.
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
        types.put(type.getName(), ApiSignatures.describe(type));
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
