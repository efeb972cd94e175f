package io.servicehooks.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.servicehooks.registration.CreatedPost;
import io.servicehooks.registration.NewPost;
import io.servicehooks.registration.NotFound;
import io.servicehooks.registration.Post;
import io.servicehooks.registration.PostLookup;
import io.servicehooks.registration.PostQuery;
import io.servicehooks.registration.Posts;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code servicehooks posts ...}: look posts up, and post as the signed-in user. */
@Command(
    name = "posts",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "Look posts up with fields and expansions (/2/posts), and post as a user.")
final class PostsCommand implements Runnable {

  @ParentCommand TopCommand top;

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(top.out());
  }

  @Command(
      name = "get",
      mixinStandardHelpOptions = true,
      description = {
        "Look posts up by id (more than 100 are asked 100 at a time). Without fields a post is",
        "only its id and text. Exit 1 when an id is not found (the found posts are printed too)."
      })
  int get(
      @Parameters(arity = "1..*", paramLabel = "ID", description = "post ids") List<String> ids,
      @Option(
              names = "--post-fields",
              split = ",",
              paramLabel = "F",
              description = "post fields, e.g. author_id,created_at,entities")
          List<String> postFields,
      @Option(
              names = "--user-fields",
              split = ",",
              paramLabel = "F",
              description = "user fields of expanded users, e.g. created_at,description")
          List<String> userFields,
      @Option(
              names = "--media-fields",
              split = ",",
              paramLabel = "F",
              description = "media fields of expanded media, e.g. url,alt_text")
          List<String> mediaFields,
      @Option(
              names = "--expansions",
              split = ",",
              paramLabel = "E",
              description =
                  "objects to include, e.g. author_id,attachments.media_keys,referenced_posts.id")
          List<String> expansions,
      @Option(
              names = "--as-user",
              description = "in the signed-in user's context (`auth login`) instead of the app's")
          boolean asUser,
      @Mixin AuthCommand.FileOption credentialsFile)
      throws IOException {
    PostQuery query =
        PostQuery.none()
            .rawPostFields(names(postFields))
            .rawUserFields(names(userFields))
            .rawMediaFields(names(mediaFields))
            .rawExpansions(names(expansions));
    Posts posts = asUser ? userClient(top, credentialsFile).posts() : top.client().posts();
    PostLookup lookup = posts.lookup(ids, query);
    Output output = top.output();
    if (output.json) {
      output.print(lookup.raw());
    } else {
      List<List<String>> rows = new ArrayList<>();
      for (Post post : lookup.found()) {
        rows.add(
            List.of(
                post.id(),
                author(post),
                post.createdAt() == null ? "-" : post.createdAt().toString(),
                Printable.of(post.text())));
      }
      if (!rows.isEmpty()) {
        output.table(List.of("ID", "AUTHOR", "CREATED_AT", "TEXT"), rows);
      }
      for (NotFound missing : lookup.notFound()) {
        output.line(
            "Not found: "
                + Printable.of(missing.id())
                + (missing.detail() == null ? "" : " (" + Printable.of(missing.detail()) + ")"));
      }
    }
    return lookup.notFound().isEmpty() ? ServicehooksCli.EXIT_OK : ServicehooksCli.EXIT_API_ERROR;
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description = {
        "Post as the signed-in user (`auth login`, or SERVICE_USER_TOKEN and",
        "SERVICE_USER_TOKEN_SECRET); prints the new post's id."
      })
  int create(
      @Option(names = "--text", required = true, paramLabel = "T", description = "the text")
          String text,
      @Option(names = "--reply-to", paramLabel = "ID", description = "the post this one answers")
          String replyTo,
      @Option(names = "--quote", paramLabel = "ID", description = "the post this one quotes")
          String quote,
      @Option(
              names = "--as-user",
              description = "required: posting acts for the signed-in user (`auth login`)")
          boolean asUser,
      @Mixin AuthCommand.FileOption credentialsFile)
      throws IOException {
    requireAsUser(spec, "create", asUser, "posting");
    NewPost post = NewPost.text(text);
    if (replyTo != null) {
      post = post.replyTo(replyTo);
    }
    if (quote != null) {
      post = post.quote(quote);
    }
    CreatedPost created = userClient(top, credentialsFile).posts().create(post);
    Output output = top.output();
    if (output.json) {
      ObjectNode root = Output.JSON.createObjectNode();
      ObjectNode data = root.putObject("data");
      data.put("id", created.id());
      data.put("text", created.text());
      created.editHistoryPostIds().forEach(data.putArray("edit_history_post_ids")::add);
      output.print(root);
    } else {
      output.line(created.id());
    }
    return ServicehooksCli.EXIT_OK;
  }

  /** The author's {@code @username} when expanded, else the author's id, else {@code -}. */
  private static String author(Post post) {
    if (post.author() != null && post.author().username() != null) {
      return "@" + Printable.of(post.author().username());
    }
    return post.authorId() == null ? "-" : Printable.of(post.authorId());
  }

  private static String[] names(List<String> given) {
    if (given == null) {
      return new String[0];
    }
    return given.stream().map(String::strip).filter(s -> !s.isEmpty()).toArray(String[]::new);
  }

  /**
   * Refuses a command that acts for a user without {@code --as-user}, before any call: the flag
   * says on whose behalf the command acts.
   */
  static void requireAsUser(CommandSpec spec, String subcommand, boolean asUser, String what) {
    if (!asUser) {
      throw new ParameterException(
          spec.commandLine().getSubcommands().get(subcommand),
          what
              + " acts for a user: add --as-user (signed in with `servicehooks auth login`, or"
              + " SERVICE_USER_TOKEN and SERVICE_USER_TOKEN_SECRET)");
    }
  }

  /** The client acting for the signed-in user, on the platform that issued the credentials. */
  static io.servicehooks.registration.UserClient userClient(
      TopCommand top, AuthCommand.FileOption credentialsFile) throws IOException {
    AuthCommand.Found found = AuthCommand.requireCredentials(top, credentialsFile);
    return AuthCommand.userPlatformClient(top, found).forUser(found.credentials());
  }
}
