package io.servicehooks.benchmarks;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * The bodies every benchmark sends: a 1.5 KB activity envelope ({@code post.create} with its {@code
 * includes}, as the platform sends them) and a 10-item account-activity batch. The JMH benchmarks,
 * the load pool and the dedup memory probe all build them here, so every number is about the same
 * bytes.
 */
final class Payloads {

  /** The consumer secret every server and benchmark uses. Not a real one. */
  static final String SECRET = "bench-consumer-secret-0123456789abcdef";

  /** Target size of an activity envelope, in bytes. */
  static final int ENVELOPE_BYTES = 1536;

  private static final String FILLER =
      "Shipping the new webhook consumer today: verified, deduplicated, routed. "
          + "Benchmarks to follow, numbers in the thread below. ";

  private Payloads() {}

  /**
   * A 19-digit event id, as the platform's {@code event_uuid} samples have, distinct for each
   * {@code n} below 10^18 and starting with 1 to 8.
   */
  static String eventUuid(long seed, long n) {
    long base = 1_000_000_000_000_000_000L * (1 + Math.floorMod(seed, 8));
    return Long.toString(base + n);
  }

  /** An activity envelope of exactly {@link #ENVELOPE_BYTES} bytes carrying {@code eventUuid}. */
  static byte[] envelope(String eventUuid) {
    String head =
        "{\"data\":{\"event_uuid\":\""
            + eventUuid
            + "\",\"event_type\":\"post.create\","
            + "\"filter\":{\"user_id\":\"2244994945\"},\"tag\":\"my-subscription\","
            + "\"payload\":{\"id\":\"1876543210987654321\",\"author_id\":\"2244994945\","
            + "\"created_at\":\"2026-03-18T12:34:56.000Z\",\"lang\":\"en\","
            + "\"conversation_id\":\"1876543210987654321\",\"reply_settings\":\"everyone\","
            + "\"public_metrics\":{\"retweet_count\":12,\"reply_count\":3,\"like_count\":87,"
            + "\"quote_count\":1,\"bookmark_count\":4,\"impression_count\":2048},"
            + "\"entities\":{\"hashtags\":[{\"start\":10,\"end\":18,\"tag\":\"webhooks\"}],"
            + "\"mentions\":[{\"start\":0,\"end\":8,\"username\":\"service\",\"id\":\"783214\"}]},"
            + "\"text\":\"";
    String tail =
        "\"},\"includes\":{\"users\":[{\"id\":\"2244994945\",\"name\":\"Service Dev\","
            + "\"username\":\"servicedev\",\"verified\":true,\"created_at\":\"2013-12-14T04:35:55.000Z\","
            + "\"description\":\"The voice of the platform's developer community.\","
            + "\"public_metrics\":{\"followers_count\":513958,\"following_count\":2039,"
            + "\"tweet_count\":3635,\"listed_count\":1672}},{\"id\":\"783214\",\"name\":\"Service\","
            + "\"username\":\"service\",\"verified\":true}],\"posts\":[{\"id\":\"1876543210987654300\","
            + "\"text\":\"The post this one replies to.\",\"author_id\":\"783214\"}]}}}";
    int textLength = ENVELOPE_BYTES - head.length() - tail.length();
    StringBuilder text = new StringBuilder(textLength);
    while (text.length() < textLength) {
      text.append(FILLER, 0, Math.min(FILLER.length(), textLength - text.length()));
    }
    return (head + text + tail).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * One line of the activity stream as {@code benchmarks/stream/fake_stream.py} writes it (about
   * 190 bytes: a mention of the subscribed user), without its newline.
   */
  static byte[] streamLine(String eventUuid) {
    return ("{\"data\":{\"event_type\":\"post.mention.create\",\"event_uuid\":\""
            + eventUuid
            + "\",\"filter\":{\"user_id\":\"2244994945\"},\"tag\":\"bench\","
            + "\"payload\":{\"id\":\"1\",\"text\":\"@hooks_demo hi\",\"author_id\":\"42\"}}}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * A legacy account-activity batch with 10 events for one subscribed user: 4 posts, 2 likes, 2
   * follows and 2 direct messages (with the {@code users} map), ids distinct per {@code n}.
   */
  static byte[] batch(long n) {
    String user = "2244994945";
    SplittableRandom random = new SplittableRandom(n);
    StringBuilder b = new StringBuilder(6 * 1024);
    b.append("{\"for_user_id\":\"").append(user).append("\",\"post_create_events\":[");
    for (int i = 0; i < 4; i++) {
      if (i > 0) {
        b.append(',');
      }
      b.append("{\"created_at\":\"Wed Mar 18 12:34:56 +0000 2026\",\"id\":")
          .append(id(n, i))
          .append(",\"id_str\":\"")
          .append(id(n, i))
          .append("\",\"text\":\"Batch post ")
          .append(i)
          .append(" of delivery ")
          .append(n)
          .append(", with a little more text to be realistic.\",")
          .append("\"source\":\"web\",\"truncated\":false,\"user\":{\"id\":")
          .append(user)
          .append(",\"id_str\":\"")
          .append(user)
          .append("\",\"name\":\"Service Dev\",")
          .append("\"screen_name\":\"servicedev\",\"followers_count\":")
          .append(random.nextInt(1_000_000))
          .append("},\"favorite_count\":")
          .append(random.nextInt(100))
          .append(",\"lang\":\"en\"}");
    }
    b.append("],\"favorite_events\":[");
    for (int i = 4; i < 6; i++) {
      if (i > 4) {
        b.append(',');
      }
      b.append("{\"id\":\"")
          .append(Long.toHexString(id(n, i)))
          .append("\",\"created_at\":\"Wed Mar 18 12:35:00 +0000 2026\",")
          .append("\"timestamp_ms\":1773837300000,\"favorited_status\":{\"id_str\":\"")
          .append(id(n, i))
          .append(
              "\",\"text\":\"A liked post.\"},\"user\":{\"id_str\":\"783214\",\"screen_name\":\"service\"}}");
    }
    b.append("],\"follow_events\":[");
    for (int i = 6; i < 8; i++) {
      if (i > 6) {
        b.append(',');
      }
      b.append("{\"type\":\"follow\",\"created_timestamp\":\"1773837300000\",\"id\":\"")
          .append(id(n, i))
          .append("\",\"target\":{\"id\":\"")
          .append(user)
          .append("\",\"screen_name\":\"servicedev\"},")
          .append("\"source\":{\"id\":\"")
          .append(1000 + i)
          .append("\",\"screen_name\":\"follower")
          .append(i)
          .append("\"}}");
    }
    b.append("],\"direct_message_events\":[");
    for (int i = 8; i < 10; i++) {
      if (i > 8) {
        b.append(',');
      }
      b.append("{\"type\":\"message_create\",\"id\":\"")
          .append(id(n, i))
          .append(
              "\",\"created_timestamp\":\"1773837300000\",\"message_create\":{\"target\":{\"recipient_id\":\"")
          .append(user)
          .append("\"},\"sender_id\":\"783214\",\"message_data\":{\"text\":\"Hello there ")
          .append(i)
          .append(
              "\",\"entities\":{\"hashtags\":[],\"symbols\":[],\"user_mentions\":[],\"urls\":[]}}}}");
    }
    b.append(
            "],\"users\":{\"783214\":{\"id\":\"783214\",\"name\":\"Service\",\"screen_name\":\"service\"},")
        .append("\"")
        .append(user)
        .append("\":{\"id\":\"")
        .append(user)
        .append("\",\"name\":\"Service Dev\",\"screen_name\":\"servicedev\"}}}");
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static long id(long n, int item) {
    return 1_500_000_000_000_000_000L + n * 16 + item;
  }
}
