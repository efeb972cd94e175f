package io.servicehooks.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code servicehooks --version}: the version and the licence of the LICENSE file. */
final class VersionTest {

  @Test
  void version_anyCommand_namesTheLicenceOfTheLicenseFile() throws Exception {
    // The repository's LICENSE, read independently of the code: its title and version lines.
    List<String> license =
        Files.readAllLines(Path.of("..", "LICENSE"), StandardCharsets.UTF_8).stream()
            .map(String::strip)
            .filter(line -> !line.isEmpty())
            .limit(2)
            .toList();
    assertThat(license).containsExactly("Apache License", "Version 2.0, January 2004");

    for (String[] args :
        List.of(new String[] {"--version"}, new String[] {"webhooks", "--version"})) {
      Cli.Run run = Cli.run(Map.of(), args);

      assertThat(run.exitCode()).as(run.toString()).isZero();
      assertThat(run.out().lines().toList())
          .as(run.toString())
          .hasSize(2)
          .first()
          .asString()
          .startsWith("servicehooks ");
      assertThat(run.out())
          .contains(license.get(0) + ", " + license.get(1).replaceFirst(",.*", ""))
          .contains("https://www.apache.org/licenses/LICENSE-2.0");
    }
  }
}
