package io.servicehooks.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.servicehooks.registration.SentMessage;
import java.io.IOException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code servicehooks dm ...}: direct messages as the signed-in user. */
@Command(
    name = "dm",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "Send direct messages as a user (/2/dm_conversations).")
final class DmCommand implements Runnable {

  @ParentCommand TopCommand top;

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(top.out());
  }

  @Command(
      name = "send",
      mixinStandardHelpOptions = true,
      description = {
        "Send a direct message as the signed-in user (`auth login`, or SERVICE_USER_TOKEN and",
        "SERVICE_USER_TOKEN_SECRET); the app needs the direct-message permission."
      })
  int send(
      @Option(names = "--to", required = true, paramLabel = "USER_ID", description = "recipient")
          String to,
      @Option(names = "--text", required = true, paramLabel = "T", description = "the text")
          String text,
      @Option(
              names = "--as-user",
              description = "required: a direct message acts for the signed-in user")
          boolean asUser,
      @Mixin AuthCommand.FileOption credentialsFile)
      throws IOException {
    PostsCommand.requireAsUser(spec, "send", asUser, "sending a direct message");
    SentMessage sent =
        PostsCommand.userClient(top, credentialsFile).directMessages().send(to, text);
    Output output = top.output();
    if (output.json) {
      ObjectNode root = Output.JSON.createObjectNode();
      root.putObject("data")
          .put("dm_conversation_id", sent.dmConversationId())
          .put("dm_event_id", sent.dmEventId());
      output.print(root);
    } else {
      output.line(
          "Sent direct message "
              + Printable.of(sent.dmEventId())
              + " in conversation "
              + Printable.of(sent.dmConversationId()));
    }
    return ServicehooksCli.EXIT_OK;
  }
}
