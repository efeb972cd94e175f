package io.servicehooks.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the reference tables of the docs ({@code docs/*.md}) so that tests compare them with the
 * code, and words the failure so that whoever added a name knows which row to add where.
 */
public final class DocTables {

  private static final Pattern CODE = Pattern.compile("`([^`]+)`");

  private DocTables() {}

  /**
   * The repository root: the nearest directory, from the working one up, that holds {@code mvnw}.
   */
  public static Path root() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.exists(dir.resolve("mvnw"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException("no mvnw above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }

  /** A file below the repository root, read as UTF-8. */
  public static String read(String relativePath) {
    try {
      return Files.readString(root().resolve(relativePath), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Every name in backticks in the first column of the first table under the heading {@code
   * heading} (for example {@code "## Metrics"}) of {@code relativePath}, kept when it matches
   * {@code name} whole.
   */
  public static Set<String> firstColumn(String relativePath, String heading, Pattern name) {
    List<String> lines = read(relativePath).lines().toList();
    int at = lines.indexOf(heading);
    if (at < 0) {
      throw new AssertionError(relativePath + " has no heading '" + heading + "'");
    }
    Set<String> names = new TreeSet<>();
    boolean inTable = false;
    for (int i = at + 1; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.startsWith("#")) {
        break;
      }
      if (line.startsWith("|")) {
        inTable = true;
        String[] cells = line.split("(?<!\\\\)\\|", -1);
        if (cells.length > 1) {
          Matcher m = CODE.matcher(cells[1]);
          while (m.find()) {
            if (name.matcher(m.group(1)).matches()) {
              names.add(m.group(1));
            }
          }
        }
      } else if (inTable) {
        break;
      }
    }
    return names;
  }

  /**
   * Fails when the names in the code and the names in the table differ, saying which rows to add
   * (with {@code rowTemplate}, where {@code NAME} stands for the name) and which to remove.
   *
   * @param what what the names are, e.g. "environment variable"
   * @param source where the code's names come from, e.g. "samples/consumer/src/main/java"
   * @param table where the table is, e.g. "docs/configuration.md, section '## Metrics'"
   */
  public static void assertSame(
      String what,
      Set<String> inCode,
      String source,
      Set<String> inTable,
      String table,
      String rowTemplate) {
    Set<String> missing = new TreeSet<>(inCode);
    missing.removeAll(inTable);
    Set<String> stale = new TreeSet<>(inTable);
    stale.removeAll(inCode);
    if (missing.isEmpty() && stale.isEmpty()) {
      return;
    }
    List<String> message = new ArrayList<>();
    if (!missing.isEmpty()) {
      message.add(
          "Each "
              + what
              + " in "
              + source
              + " needs a row in "
              + table
              + ". Add these rows (fill in the columns):");
      missing.forEach(n -> message.add("  " + rowTemplate.replace("NAME", n)));
    }
    if (!stale.isEmpty()) {
      message.add(
          "These rows of "
              + table
              + " name a "
              + what
              + " that "
              + source
              + " no longer has: remove or rename them: "
              + stale);
    }
    throw new AssertionError(String.join("\n", message));
  }
}
