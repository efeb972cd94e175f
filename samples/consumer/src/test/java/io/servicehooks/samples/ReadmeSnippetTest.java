package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The README's first example must be the code that compiles in {@link QuickStart}. */
final class ReadmeSnippetTest {

  @Test
  void readmeExample_isQuickStartCode() throws Exception {
    String source =
        Files.readString(Path.of("src/main/java/io/servicehooks/samples/QuickStart.java"));
    String snippet =
        source.substring(
            source.indexOf("// README-BEGIN") + "// README-BEGIN".length(),
            source.indexOf("// README-END"));
    String expected =
        snippet
            .lines()
            .filter(l -> !l.isBlank())
            .map(String::strip)
            .collect(Collectors.joining("\n"));
    String readme = Files.readString(Path.of("../../README.md"));
    String normalizedReadme = readme.lines().map(String::strip).collect(Collectors.joining("\n"));
    assertThat(normalizedReadme).contains(expected);
  }
}
