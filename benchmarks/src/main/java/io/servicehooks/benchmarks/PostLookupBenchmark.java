package io.servicehooks.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.servicehooks.registration.Post;
import io.servicehooks.registration.PostLookup;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * A post lookup's answer of 100 posts with their authors and media ({@code
 * expansions=author_id,attachments.media_keys}, every post field docs/protocol.md lists asked for),
 * from its bytes to the resolved records ({@link PostLookup#parse}: posts, {@code post.author()},
 * {@code post.media()}), against Jackson's tree model of the same bytes ({@code readTree}) as the
 * baseline.
 *
 * <p>Run with {@code -prof gc}: {@code gc.alloc.rate.norm} is the bytes allocated per answer.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+UseParallelGC"})
public class PostLookupBenchmark {

  static final int POSTS = 100;
  static final int AUTHORS = 40;

  private byte[] answer;
  private ObjectMapper mapper;

  @Setup
  public void setUp() throws IOException {
    mapper = new ObjectMapper();
    answer = mapper.writeValueAsBytes(answer(mapper));
    PostLookup check = PostLookup.parse(answer);
    if (check.found().size() != POSTS
        || check.found().stream().anyMatch(p -> p.author() == null || p.media().isEmpty())) {
      throw new IllegalStateException("the answer does not resolve as expected");
    }
  }

  /** The answer's size in bytes, for the results table. */
  public static void main(String[] args) throws IOException {
    ObjectMapper mapper = new ObjectMapper();
    System.out.println(mapper.writeValueAsBytes(answer(mapper)).length + " bytes");
  }

  /** Bytes to resolved records; each post's author and first media read so nothing is elided. */
  @Benchmark
  public void lookupRecords(Blackhole blackhole) throws IOException {
    PostLookup lookup = PostLookup.parse(answer);
    for (Post post : lookup.found()) {
      blackhole.consume(post.author().username());
      blackhole.consume(post.media().get(0).url());
    }
  }

  /** The floor: Jackson's tree of the same bytes, nothing resolved. */
  @Benchmark
  public JsonNode jacksonTree() throws IOException {
    return mapper.readTree(answer);
  }

  static ObjectNode answer(ObjectMapper mapper) {
    ObjectNode root = mapper.createObjectNode();
    ArrayNode data = root.putArray("data");
    ObjectNode includes = root.putObject("includes");
    ArrayNode users = includes.putArray("users");
    ArrayNode media = includes.putArray("media");
    for (int u = 0; u < AUTHORS; u++) {
      ObjectNode user = users.addObject();
      user.put("id", Long.toString(2244994945L + u));
      user.put("name", "Author number " + u);
      user.put("username", "author_" + u);
      user.put("created_at", "2013-12-14T04:35:55.000Z");
      user.put(
          "description", "The voice of author " + u + ", posting about APIs and bots since 2013.");
      user.put("location", "127.0.0.1");
      user.put("url", "https://t.co/3ZX3TNiZCY");
      user.put("protected", false);
      user.put("verified", u % 3 == 0);
      user.put("profile_image_url", "https://pbs.example.com/profile_images/" + u + "/normal.jpg");
      ObjectNode metrics = user.putObject("public_metrics");
      metrics.put("followers_count", 570_000 + u);
      metrics.put("following_count", 2048);
      metrics.put("post_count", 3_900 + u);
      metrics.put("listed_count", 1_700);
    }
    for (int i = 0; i < POSTS; i++) {
      String id = Long.toString(1460323737035677698L + i);
      String author = Long.toString(2244994945L + (i % AUTHORS));
      ObjectNode post = data.addObject();
      post.put("id", id);
      post.put(
          "text",
          "@bot here is post "
              + i
              + " with a link https://t.co/abcdefghij and a #hashtag, thanks for reading! ✨");
      post.put("author_id", author);
      post.put("created_at", "2026-11-26T12:" + String.format("%02d", i % 60) + ":00.000Z");
      post.put("conversation_id", id);
      post.put("lang", "en");
      post.put("source", "servicehooks bench");
      post.put("possibly_sensitive", false);
      post.putArray("edit_history_post_ids").add(id);
      ArrayNode refs = post.putArray("referenced_posts");
      refs.addObject().put("type", "replied_to").put("id", Long.toString(1460323737035677000L + i));
      ArrayNode keys = post.putObject("attachments").putArray("media_keys");
      ObjectNode metrics = post.putObject("public_metrics");
      metrics.put("repost_count", i * 3);
      metrics.put("reply_count", i);
      metrics.put("like_count", i * 11);
      metrics.put("quote_count", i / 2);
      ObjectNode entities = post.putObject("entities");
      entities
          .putArray("mentions")
          .addObject()
          .put("start", 0)
          .put("end", 4)
          .put("username", "bot")
          .put("id", "1500");
      entities
          .putArray("urls")
          .addObject()
          .put("start", 33)
          .put("end", 56)
          .put("url", "https://t.co/abcdefghij")
          .put("expanded_url", "https://example.org/articles/" + i)
          .put("display_url", "example.org/articles/" + i);
      entities
          .putArray("hashtags")
          .addObject()
          .put("start", 63)
          .put("end", 71)
          .put("tag", "hashtag");
      int items = 1 + (i % 2);
      for (int m = 0; m < items; m++) {
        String key = "3_" + id + "_" + m;
        keys.add(key);
        ObjectNode item = media.addObject();
        item.put("media_key", key);
        item.put("type", "photo");
        item.put("url", "https://pbs.example.com/media/" + key + ".jpg");
        item.put("width", 1200);
        item.put("height", 675);
        item.put("alt_text", "A picture attached to post " + i);
      }
    }
    return root;
  }
}
