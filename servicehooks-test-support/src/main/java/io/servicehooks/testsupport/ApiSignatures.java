package io.servicehooks.testsupport;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Writes the API dump lines of one public type: its header (kind, modifiers, type parameters,
 * supertypes) and one sorted line per public or protected constructor, method and field.
 */
final class ApiSignatures {

  private ApiSignatures() {}

  static List<String> describe(Class<?> type) {
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
              .map(ApiSignatures::typeVariable)
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
        Arrays.stream(v.getBounds())
            .filter(b -> b != Object.class)
            .map(ApiSignatures::name)
            .toList();
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
                  .map(ApiSignatures::typeVariable)
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
    String joined =
        Arrays.stream(params).map(ApiSignatures::name).collect(Collectors.joining(", "));
    if (e.isVarArgs()) {
      joined = joined.substring(0, joined.length() - 2) + "...";
    }
    s.append('(').append(joined).append(')');
    Type[] thrown = e.getGenericExceptionTypes();
    if (thrown.length > 0) {
      s.append(" throws ")
          .append(Arrays.stream(thrown).map(ApiSignatures::name).collect(Collectors.joining(", ")));
    }
    return s.toString().trim();
  }

  private static String name(Type t) {
    return t.getTypeName().replace('$', '.');
  }
}
