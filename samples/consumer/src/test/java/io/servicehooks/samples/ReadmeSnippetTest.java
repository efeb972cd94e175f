package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The README's examples must be code that compiles: the first one {@link QuickStart}, the store in
 * "Write your own store" {@link MapDeduplicator}.
 */
final class ReadmeSnippetTest {

  @Test
  void readmeExample_isQuickStartCode() throws Exception {
    assertReadmeContains("QuickStart.java", "README");
  }

  @Test
  void readmeStoreExample_isMapDeduplicatorCode() throws Exception {
    assertReadmeContains("MapDeduplicator.java", "README-STORE");
  }

  private static void assertReadmeContains(String file, String marker) throws Exception {
    String source = Files.readString(Path.of("src/main/java/io/servicehooks/samples/" + file));
    String snippet =
        source.substring(
            source.indexOf("// " + marker + "-BEGIN") + ("// " + marker + "-BEGIN").length(),
            source.indexOf("// " + marker + "-END"));
    String expected =
        snippet
            .lines()
            .filter(l -> !l.isBlank())
            .map(String::strip)
            .collect(Collectors.joining("\n"));
    String readme = Files.readString(Path.of("../../README.md"));
    String normalizedReadme =
        readme
            .lines()
            .map(String::strip)
            .filter(l -> !l.isBlank())
            .collect(Collectors.joining("\n"));
    assertThat(normalizedReadme).contains(expected);
  }
}
