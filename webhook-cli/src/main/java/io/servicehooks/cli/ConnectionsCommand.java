package io.servicehooks.cli;

import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code servicehooks connections ...}: the app's open activity-stream connections. */
@Command(
    name = "connections",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "List and end the app's open activity-stream connections (/2/connections).")
final class ConnectionsCommand implements Runnable {

  @ParentCommand TopCommand top;

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(top.out());
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List the open stream connections.")
  int list() throws IOException {
    top.output().connections(top.client().listConnections());
    return ServicehooksCli.EXIT_OK;
  }

  @Command(
      name = "kill",
      mixinStandardHelpOptions = true,
      description = {
        "End one stream connection, or all of them with --all.",
        "The consumer holding it sees its stream end and reconnects unless it was stopped."
      })
  int kill(
      @Parameters(
              arity = "0..1",
              paramLabel = "ID",
              description = "the connection's endpoint id (see connections list)")
          String id,
      @Option(names = "--all", description = "end every connection of the app") boolean all)
      throws IOException {
    if ((id == null) == !all) {
      throw new ParameterException(
          spec.commandLine().getSubcommands().get("kill"), "give a connection ID, or --all");
    }
    if (all) {
      top.output().killed("all connections", top.client().killAllConnections());
    } else {
      top.output().killed("connection " + id, top.client().killConnection(id));
    }
    return ServicehooksCli.EXIT_OK;
  }
}
