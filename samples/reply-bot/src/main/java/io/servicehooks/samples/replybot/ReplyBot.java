package io.servicehooks.samples.replybot;

import io.servicehooks.core.WebhookEvent;
import io.servicehooks.core.payload.DirectMessage;
import io.servicehooks.core.payload.PostCreated;
import io.servicehooks.registration.Answering;
import io.servicehooks.registration.Expansion;
import io.servicehooks.registration.Post;
import io.servicehooks.registration.PostQuery;
import io.servicehooks.registration.Say;
import io.servicehooks.registration.UserCredentials;
import io.servicehooks.registration.UserCredentialsSource;
import io.servicehooks.registration.WebhookApiException;
import io.servicehooks.registration.WebhookClient;
import io.servicehooks.samples.ConsumerMain;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code java -jar servicehooks-reply-bot.jar}: a bot that thanks whoever mentions it and answers
 * direct messages, as its own user. On a {@code post.mention.create} it looks the post up with
 * {@code expansions=author_id} and replies {@code @<author> thanks!} to it; on a {@code
 * dm.received} it sends the sender {@code got it}. It never answers its own posts or direct
 * messages: the consumer does not run listeners for events the subscribed user caused itself.
 *
 * <p>Configured like the standalone consumer ({@code SERVICE_CONSUMER_SECRET}, {@code PORT}, {@code
 * HOST}, {@code WEBHOOK_PATH}, {@code DELIVERY=webhook|stream}, the stores, ...), plus what
 * answering needs: {@code SERVICE_API_BASE_URL}, {@code SERVICE_API_KEY} and {@code
 * SERVICE_API_SECRET} (they sign every call made as the user, so an app-only {@code
 * SERVICE_BEARER_TOKEN} alone is refused at start), and the bot user's {@code SERVICE_USER_TOKEN}
 * and {@code SERVICE_USER_TOKEN_SECRET} (else the credentials file of {@code servicehooks auth
 * login}). Unless {@code REDIS_URL}, {@code DATABASE_URL} or {@code DEDUP_FILE} names another
 * store, it remembers what it answered in {@code servicehooks-reply-bot.db} in the working
 * directory, so a restart (and the stream's backfill after it) never answers an event twice. {@code
 * --demo} runs it against the platform simulator. Exit codes as the standalone consumer's: 0 after
 * a clean stop, 2 for a configuration error.
 */
public final class ReplyBot {

  private static final Logger log = LoggerFactory.getLogger("servicehooks.reply-bot");

  /** Where the bot remembers the events it answered, unless another store is configured. */
  static final String DEFAULT_DEDUP_FILE = "servicehooks-reply-bot.db";

  /** The reply to a mention, after {@code @<author's username> }. */
  static final String THANKS = "thanks!";

  /** The answer to a direct message. */
  static final String GOT_IT = "got it";

  private ReplyBot() {}

  public static void main(String[] args) throws Exception {
    if (args.length == 1 && args[0].equals("--demo")) {
      System.exit(ReplyBotDemo.run(System.out));
    }
    int exit = run(args, System.getenv(), System.out, System.err);
    if (exit != 0) {
      System.exit(exit);
    }
  }

  /** Runs the bot until SIGTERM; the exit status. */
  static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err)
      throws Exception {
    Answering answering = answeringOrRefuse(env, err);
    if (answering == null) {
      return 2;
    }
    return ConsumerMain.run(args, withDefaults(env), out, err, listeners(answering));
  }

  /** Starts the bot and returns it running, or null (with {@code exit[0]}) as the consumer's. */
  static ConsumerMain.Running start(
      String[] args, Map<String, String> env, PrintStream out, PrintStream err, int[] exit)
      throws Exception {
    Answering answering = answeringOrRefuse(env, err);
    if (answering == null) {
      exit[0] = 2;
      return null;
    }
    return ConsumerMain.start(args, withDefaults(env), out, err, listeners(answering), exit);
  }

  /** {@link #answering}, or null after the one line saying what is missing. */
  private static Answering answeringOrRefuse(Map<String, String> env, PrintStream err) {
    try {
      return answering(env);
    } catch (IllegalArgumentException | IllegalStateException e) {
      err.println("servicehooks-reply-bot: " + e.getMessage());
      return null;
    }
  }

  /**
   * The bot's two listeners, answering through {@code answering}, traced in the consumer's
   * registry.
   */
  static ConsumerMain.Listeners listeners(Answering answering) {
    return (builder, meters, observations) -> {
      Answering traced = answering.observationRegistry(observations);
      builder
          .onEvent(PostCreated.class, traced.listener(PostCreated.class, ReplyBot::onPost))
          .onEvent(
              DirectMessage.class, traced.listener(DirectMessage.class, ReplyBot::onDirectMessage));
    };
  }

  /** A mention of the bot: look the post up with its author, and thank the author. */
  static void onPost(WebhookEvent event, PostCreated post, Say say) throws IOException {
    if (!event.type().equals("post.mention.create")) {
      return; // its own posts and replies arrive too (post.create): nothing to answer
    }
    // As the bot user (user context), like the answer; WebhookClient#posts() looks up app-only.
    Post found =
        say.client()
            .posts()
            .get(post.id(), PostQuery.none().expansions(Expansion.AUTHOR_ID))
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "post " + post.id() + " was not found (deleted since the mention?)"));
    if (found.author() == null) {
      throw new IllegalStateException("the lookup of post " + post.id() + " named no author");
    }
    String text = "@" + found.author().username() + " " + THANKS;
    try {
      String reply = say.reply(text);
      log.info("Replied to {} with post {}", post.id(), reply);
    } catch (WebhookApiException e) {
      if (e.reason() != WebhookApiException.Reason.DUPLICATE_CONTENT) {
        throw e; // a failed listener: tried again (the platform's retry, the inbox's)
      }
      // The platform refuses the same text from the same user again: no retry can change that,
      // and the author was thanked already.
      log.info(
          "Not replying to {}: the platform refused the same thanks again (duplicate content)",
          post.id());
    }
  }

  /** A direct message to the bot: answer the sender. */
  static void onDirectMessage(WebhookEvent event, DirectMessage message, Say say)
      throws IOException {
    if (!event.type().equals("dm.received")) {
      return;
    }
    String sent = say.reply(GOT_IT);
    log.info("Answered direct message {} with {}", message.id(), sent);
  }

  /**
   * The platform client and the bot user's credentials, from the environment; refuses with one line
   * what answering cannot do without.
   */
  static Answering answering(Map<String, String> env) {
    String base = value(env, "SERVICE_API_BASE_URL");
    String key = value(env, "SERVICE_API_KEY");
    String secret = value(env, "SERVICE_API_SECRET");
    String token = value(env, UserCredentialsSource.TOKEN_VARIABLE);
    String tokenSecret = value(env, UserCredentialsSource.TOKEN_SECRET_VARIABLE);
    if (base == null) {
      throw new IllegalArgumentException(
          "SERVICE_API_BASE_URL is not set (the platform's API address: the bot looks posts up"
              + " and answers there)");
    }
    if (key == null || secret == null) {
      throw new IllegalArgumentException(
          "SERVICE_API_KEY and SERVICE_API_SECRET are needed: they sign every answer made as the"
              + " bot user (SERVICE_BEARER_TOKEN alone cannot act for a user)");
    }
    UserCredentialsSource user = userCredentials(token, tokenSecret);
    URI baseUrl;
    try {
      baseUrl = URI.create(base);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "SERVICE_API_BASE_URL must be an absolute http(s) URL without user information");
    }
    WebhookClient.Builder client =
        WebhookClient.builder()
            .baseUrl(baseUrl)
            .allowInsecureUrls("true".equals(value(env, "ALLOW_INSECURE_URL")))
            .connectTimeout(Duration.ofSeconds(3))
            .requestTimeout(Duration.ofSeconds(8))
            .apiCredentials(key, secret);
    return Answering.with(client.build(), user);
  }

  /**
   * The bot user's credentials: {@code SERVICE_USER_TOKEN} and {@code SERVICE_USER_TOKEN_SECRET},
   * else the credentials file {@code servicehooks auth login} wrote (as the CLI reads them).
   */
  private static UserCredentialsSource userCredentials(String token, String tokenSecret) {
    if (token != null && tokenSecret != null) {
      return UserCredentialsSource.single(UserCredentials.of(token, tokenSecret));
    }
    if (token != null || tokenSecret != null) {
      throw new IllegalArgumentException(
          (token == null
                  ? UserCredentialsSource.TOKEN_VARIABLE
                  : UserCredentialsSource.TOKEN_SECRET_VARIABLE)
              + " is not set (set both SERVICE_USER_TOKEN and SERVICE_USER_TOKEN_SECRET, or"
              + " neither to use the credentials file of `servicehooks auth login`)");
    }
    String home = System.getenv("HOME"); // as UserCredentialsSource.fromEnvironment() reads it
    Path file =
        Path.of(
            home == null || home.isBlank() ? System.getProperty("user.home") : home,
            UserCredentialsSource.CREDENTIALS_FILE);
    if (!Files.isRegularFile(file)) {
      throw new IllegalArgumentException(
          "SERVICE_USER_TOKEN and SERVICE_USER_TOKEN_SECRET are needed (the bot user's access"
              + " token), or the credentials file "
              + file
              + " that `servicehooks auth login` writes");
    }
    return UserCredentialsSource.fromEnvironment();
  }

  /** The environment with the bot's default store: a file, unless another store is named. */
  static Map<String, String> withDefaults(Map<String, String> env) {
    Map<String, String> effective = new HashMap<>(env);
    if (value(env, "REDIS_URL") == null
        && value(env, "DATABASE_URL") == null
        && value(env, "DEDUP_FILE") == null) {
      effective.put("DEDUP_FILE", DEFAULT_DEDUP_FILE);
    }
    return effective;
  }

  private static String value(Map<String, String> env, String name) {
    String value = env.get(name);
    return value == null || value.isBlank() ? null : value.strip();
  }
}
