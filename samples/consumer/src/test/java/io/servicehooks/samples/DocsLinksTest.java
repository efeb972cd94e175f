package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.servicehooks.testsupport.DocTables;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the root README, the docs/ pages and the module READMEs reaches a file
 * that exists, and every {@code #anchor} a heading of it (GitHub's slugs); every docs/ page is
 * reachable from the README.
 */
final class DocsLinksTest {

  private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
  private static final Pattern FENCE = Pattern.compile("(?s)```.*?```");

  private static List<Path> markdown(Path root) throws IOException {
    List<Path> files = new ArrayList<>();
    files.add(root.resolve("README.md"));
    try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
    }
    try (Stream<Path> all = Files.walk(root, 3)) {
      all.filter(p -> p.getFileName().toString().equals("README.md"))
          .filter(p -> !p.equals(root.resolve("README.md")))
          .filter(p -> !p.toString().contains("/target/") && !p.toString().contains("/.mvn/"))
          .sorted()
          .forEach(files::add);
    }
    return files;
  }

  /** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
  static String slug(String heading) {
    return heading
        .strip()
        .toLowerCase(Locale.ROOT)
        .replaceAll("[^\\p{L}\\p{N} _-]", "")
        .replace(' ', '-');
  }

  private static Set<String> anchors(Path file) throws IOException {
    Set<String> anchors = new HashSet<>();
    String text = FENCE.matcher(Files.readString(file)).replaceAll("");
    for (String line : text.lines().toList()) {
      if (line.startsWith("#")) {
        anchors.add(slug(line.replaceFirst("^#+", "")));
      }
    }
    return anchors;
  }

  @Test
  void everyRelativeLink_reachesAFileAndHeading() throws IOException {
    Path root = DocTables.root();
    List<String> broken = new ArrayList<>();
    for (Path file : markdown(root)) {
      String text = FENCE.matcher(Files.readString(file)).replaceAll("");
      Matcher m = LINK.matcher(text);
      while (m.find()) {
        String target = m.group(1);
        if (target.matches("^[a-z]+:.*")) {
          continue; // http(s), mailto: not checked offline
        }
        String path = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
        String anchor = target.contains("#") ? target.substring(target.indexOf('#') + 1) : null;
        Path resolved = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
        String where = root.relativize(file) + ": (" + target + ")";
        if (!Files.exists(resolved)) {
          broken.add(where + " -> no file " + root.relativize(resolved));
        } else if (anchor != null && resolved.toString().endsWith(".md")) {
          if (!anchors(resolved).contains(anchor)) {
            broken.add(where + " -> no heading '#" + anchor + "' in " + root.relativize(resolved));
          }
        }
      }
    }
    assertThat(broken).as("broken links (fix the link or the heading)").isEmpty();
  }

  @Test
  void everyDocsPage_isLinkedFromTheReadme() throws IOException {
    Path root = DocTables.root();
    String readme = Files.readString(root.resolve("README.md"));
    try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
      for (Path page : docs.filter(p -> p.toString().endsWith(".md")).toList()) {
        assertThat(readme)
            .as("README.md's Documentation table links docs/%s", page.getFileName())
            .contains("](docs/" + page.getFileName() + ")");
      }
    }
  }
}
