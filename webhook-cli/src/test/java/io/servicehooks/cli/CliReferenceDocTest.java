package io.servicehooks.cli;

import io.servicehooks.testsupport.DocTables;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The commands table of docs/cli.md names exactly the leaves of picocli's command tree. */
final class CliReferenceDocTest {

  static final String HEADING = "## Commands";

  private static void leaves(CommandLine command, String path, Set<String> into) {
    if (command.getSubcommands().isEmpty()) {
      into.add(path);
      return;
    }
    command
        .getSubcommands()
        .forEach(
            (name, sub) -> {
              if (sub.getCommandName().equals(name)) { // aliases once
                leaves(sub, path + " " + name, into);
              }
            });
  }

  @Test
  void cliReference_commandsTable_namesEveryCommand() {
    CommandLine top = ServicehooksCli.commandLine(Map.of());
    Set<String> inCode = new TreeSet<>();
    leaves(top, top.getCommandName(), inCode);

    DocTables.assertSame(
        "command",
        inCode,
        "the picocli command tree (ServicehooksCli.commandLine)",
        DocTables.firstColumn(
            "docs/cli.md", HEADING, Pattern.compile("servicehooks( [a-z][a-z-]*)+")),
        "docs/cli.md, the table under '" + HEADING + "'",
        "| `NAME` | <what it does> |");
  }
}
