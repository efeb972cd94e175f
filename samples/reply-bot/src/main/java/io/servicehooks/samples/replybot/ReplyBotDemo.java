package io.servicehooks.samples.replybot;

import io.servicehooks.samples.ConsumerMain;
import io.servicehooks.testkit.PlatformSimulator;
import io.servicehooks.testkit.SimulatedDirectMessage;
import io.servicehooks.testkit.SimulatedPost;
import io.servicehooks.testkit.SimulatedUserToken;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code java -jar servicehooks-reply-bot.jar --demo}: the reply bot against the platform simulator
 * on this machine, no credentials needed. Alice mentions the bot and the bot thanks her; its reply
 * comes back to it as its own {@code post.create} and is not answered; Alice sends a direct message
 * and gets {@code got it}; the bot restarts, the stream's backfill brings the mention again, and
 * the bot's file store keeps it from answering twice. Prints each step; exit 0 when every step
 * happened as described, 1 otherwise.
 */
final class ReplyBotDemo {

  static final String BOT = "1500000001";
  static final String ALICE = "1500000002";
  private static final Duration WAIT = Duration.ofSeconds(20);

  private ReplyBotDemo() {}

  static int run(PrintStream out) throws Exception {
    Path dir = Files.createTempDirectory("servicehooks-reply-bot-demo");
    try (PlatformSimulator platform = PlatformSimulator.builder().localMode(true).build().start()) {
      platform.addUser(BOT, "reply_bot", "Reply Bot");
      platform.addUser(ALICE, "alice", "Alice");
      SimulatedUserToken bot = platform.signIn(BOT);
      for (String type : List.of("post.mention.create", "post.create", "dm.received")) {
        platform.subscribe(type, BOT, null); // no webhook: the activity stream
      }
      Map<String, String> env =
          Map.ofEntries(
              Map.entry("SERVICE_CONSUMER_SECRET", platform.consumerSecret()),
              Map.entry("PORT", "0"),
              Map.entry("HOST", "127.0.0.1"),
              Map.entry("DELIVERY", "stream"),
              Map.entry("SERVICE_API_BASE_URL", platform.baseUrl().toString()),
              Map.entry("SERVICE_API_KEY", platform.apiKey()),
              Map.entry("SERVICE_API_SECRET", platform.apiSecret()),
              Map.entry("SERVICE_USER_TOKEN", bot.token()),
              Map.entry("SERVICE_USER_TOKEN_SECRET", bot.tokenSecret()),
              Map.entry("DEDUP_FILE", dir.resolve("reply-bot.db").toString()));
      out.println("== the platform simulator at " + platform.baseUrl());
      out.println("   users: @reply_bot (" + BOT + ", the bot), @alice (" + ALICE + ")");

      boolean ok;
      try (ConsumerMain.Running running = started(env, out, platform, 1)) {
        out.println("== @alice mentions the bot");
        String mention = platform.mention(ALICE, BOT, "hello there");
        List<SimulatedPost> replies = platform.awaitPostsBy(BOT, 1, WAIT);
        SimulatedPost reply = replies.get(0);
        out.println(
            "   the bot replied " + quoted(reply.text()) + " to " + reply.inReplyToPostId());
        ok = mention.equals(reply.inReplyToPostId()) && reply.text().equals("@alice thanks!");

        out.println("== its reply comes back to the bot as its own post.create");
        Thread.sleep(1_000); // time enough to answer it, were it answered
        int afterOwn = platform.postsBy(BOT).size();
        out.println("   posts by the bot: " + afterOwn + " (it does not answer itself)");
        ok &= afterOwn == 1;

        out.println("== @alice sends the bot a direct message");
        platform.sendDm(ALICE, BOT, "psst");
        List<SimulatedDirectMessage> answers = platform.awaitDirectMessagesTo(ALICE, 1, WAIT);
        out.println("   the bot answered " + quoted(answers.get(0).text()));
        ok &= answers.get(0).text().equals(ReplyBot.GOT_IT);
      }

      out.println("== the bot restarts: the stream asks the last minutes again (backfill)");
      try (ConsumerMain.Running running = started(env, out, platform, 1)) {
        Thread.sleep(2_000); // the backfill's events run (or would) meanwhile
        int posts = platform.postsBy(BOT).size();
        int dms = platform.directMessagesTo(ALICE).size();
        out.println(
            "   posts by the bot: "
                + posts
                + ", direct messages to @alice: "
                + dms
                + " (its file store remembers what it answered)");
        ok &= posts == 1 && dms == 1;
      }
      out.println(ok ? "== demo OK" : "== demo FAILED: a step did not happen as described");
      return ok ? 0 : 1;
    } finally {
      deleteTree(dir);
    }
  }

  private static ConsumerMain.Running started(
      Map<String, String> env, PrintStream out, PlatformSimulator platform, int streams)
      throws Exception {
    int[] exit = new int[1];
    ConsumerMain.Running running = ReplyBot.start(new String[0], env, out, System.err, exit);
    if (running == null) {
      throw new IllegalStateException("the bot did not start (exit " + exit[0] + ")");
    }
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (platform.openStreams().size() < streams) {
      if (System.nanoTime() > deadline) {
        running.close();
        throw new IllegalStateException("the bot's stream did not connect within " + WAIT);
      }
      Thread.sleep(20);
    }
    return running;
  }

  private static String quoted(String text) {
    return "\"" + text + "\"";
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths
          .sorted(Comparator.reverseOrder())
          .forEach(
              p -> {
                try {
                  Files.deleteIfExists(p);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              });
    }
  }
}
