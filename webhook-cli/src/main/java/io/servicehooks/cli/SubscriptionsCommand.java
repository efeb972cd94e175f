package io.servicehooks.cli;

import io.servicehooks.registration.Subscription;
import io.servicehooks.registration.SubscriptionUpdate;
import io.servicehooks.registration.WebhookApiException;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code servicehooks subscriptions ...}: which activity events the platform delivers. */
@Command(
    name = "subscriptions",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description =
        "Create, list, update and delete activity subscriptions (/2/activity/subscriptions).")
final class SubscriptionsCommand implements Runnable {

  @ParentCommand TopCommand top;

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(top.out());
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description = "Subscribe to an event type for a user or a keyword.")
  int create(
      @Option(
              names = "--event-type",
              required = true,
              paramLabel = "TYPE",
              description = "for example post.create, dm.received, profile.update.bio")
          String eventType,
      @Option(names = "--user-id", paramLabel = "ID", description = "filter: events of this user")
          String userId,
      @Option(
              names = "--keyword",
              paramLabel = "WORD",
              description = "filter: events matching this keyword")
          String keyword,
      @Option(
              names = "--direction",
              paramLabel = "DIR",
              description = "filter for DM and chat events:" + " sent or received")
          String direction,
      @Option(
              names = "--tag",
              paramLabel = "TAG",
              description = "free tag echoed in every delivery")
          String tag,
      @Option(names = "--webhook-id", paramLabel = "ID", description = "webhook to deliver to")
          String webhookId,
      @Option(
              names = "--as-user",
              description =
                  "in the signed-in user's context (`auth login`), as private events (dm.*) need")
          boolean asUser,
      @Mixin AuthCommand.FileOption credentialsFile)
      throws IOException {
    if ((userId == null) == (keyword == null)) {
      throw new ParameterException(
          spec.commandLine().getSubcommands().get("create"),
          "give exactly one of --user-id and --keyword");
    }
    Map<String, String> filter = new LinkedHashMap<>();
    if (userId != null) {
      filter.put("user_id", userId);
    } else {
      filter.put("keyword", keyword);
    }
    if (direction != null) {
      filter.put("direction", direction);
    }
    Subscription created;
    try {
      created =
          asUser
              ? asUser(credentialsFile).createSubscription(eventType, filter, tag, webhookId)
              : top.client().createSubscription(eventType, filter, tag, webhookId);
    } catch (WebhookApiException e) {
      if (e.reason() == WebhookApiException.Reason.USER_CONTEXT_REQUIRED) {
        top.err().println("hint: run `servicehooks auth login`, then add --as-user");
      }
      throw e;
    }
    top.output().subscription(created);
    return ServicehooksCli.EXIT_OK;
  }

  /** The client acting for the signed-in user, on the platform that issued the credentials. */
  private io.servicehooks.registration.UserClient asUser(AuthCommand.FileOption credentialsFile)
      throws IOException {
    AuthCommand.Found found = AuthCommand.requireCredentials(top, credentialsFile);
    return AuthCommand.userPlatformClient(top, found).forUser(found.credentials());
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List the activity subscriptions.")
  int list() throws IOException {
    top.output().subscriptions(top.client().listSubscriptions());
    return ServicehooksCli.EXIT_OK;
  }

  @Command(
      name = "update",
      mixinStandardHelpOptions = true,
      description = {
        "Change a subscription's tag or webhook; the platform changes nothing else",
        "(a new filter or event type means delete and create)."
      })
  int update(
      @Parameters(paramLabel = "ID", description = "subscription id") String id,
      @Option(names = "--tag", paramLabel = "TAG", description = "the new tag") String tag,
      @Option(
              names = "--webhook-id",
              paramLabel = "ID",
              description = "deliver to this webhook (and to the stream while one is open)")
          String webhookId,
      @Option(
              names = "--no-webhook",
              description = "detach from its webhook: events go to the activity stream only")
          boolean noWebhook)
      throws IOException {
    CommandLine update = spec.commandLine().getSubcommands().get("update");
    if (webhookId != null && noWebhook) {
      throw new ParameterException(update, "give --webhook-id or --no-webhook, not both");
    }
    if (tag == null && webhookId == null && !noWebhook) {
      throw new ParameterException(update, "give --tag, --webhook-id or --no-webhook");
    }
    SubscriptionUpdate change = SubscriptionUpdate.change();
    if (tag != null) {
      change = change.tag(tag);
    }
    if (webhookId != null) {
      change = change.webhookId(webhookId);
    }
    if (noWebhook) {
      change = change.noWebhook();
    }
    top.output().subscription(top.client().updateSubscription(id, change));
    return ServicehooksCli.EXIT_OK;
  }

  @Command(
      name = "delete",
      mixinStandardHelpOptions = true,
      description = "Delete an activity subscription.")
  int delete(@Parameters(paramLabel = "ID", description = "subscription id") String id)
      throws IOException {
    top.output().deleted("Subscription", id, top.client().deleteSubscription(id));
    return ServicehooksCli.EXIT_OK;
  }
}
