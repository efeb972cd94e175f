package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The lookup parser's edges: times, values of unexpected types, answers that are not objects. */
final class LookupParserTest {

  @Test
  void instant_platformFormat_sameAsInstantParse_forManyTimes() {
    Random random = new Random(33);
    for (int i = 0; i < 10_000; i++) {
      Instant expected =
          Instant.ofEpochMilli(random.nextLong(0, 4_102_444_800_000L)); // 1970 to 2100
      String text = expected.toString();
      if (expected.getNano() == 0) {
        text = text.replace("Z", ".000Z");
      } else if (text.length() < 24) {
        continue;
      }
      assertThat(LookupParser.instant(text)).as(text).isEqualTo(Instant.parse(text));
    }
  }

  @Test
  void instant_impossibleOrOtherForms_nullOrParsedTheSlowWay() {
    assertThat(LookupParser.instant("2026-02-30T10:00:00.000Z")).isNull();
    assertThat(LookupParser.instant("2026-13-01T10:00:00.000Z")).isNull();
    assertThat(LookupParser.instant("2026-1a-01T10:00:00.000Z")).isNull();
    assertThat(LookupParser.instant("2026-11-26T10:00:00Z"))
        .isEqualTo(Instant.parse("2026-11-26T10:00:00Z"));
    assertThat(LookupParser.instant("2026-11-26T10:00:00.123456+01:00"))
        .isEqualTo(Instant.parse("2026-11-26T09:00:00.123456Z"));
    assertThat(LookupParser.instant("yesterday")).isNull();
  }

  @Test
  void valuesOfUnexpectedTypes_absentNotAFailure() throws IOException {
    String answer =
        """
        {"data":[{"id":7,"text":["not","text"],"author_id":{"x":1},"possibly_sensitive":"maybe",
                  "public_metrics":[1,2],"referenced_posts":{"type":"quoted"},
                  "attachments":{"media_keys":"3_1"},"edit_history_post_ids":[null,"7",{"a":1}],
                  "entities":{"mentions":"none","urls":[1,{"url":"u"}]}}, 5, "x"],
         "includes":{"users":{"id":"1"},"media":[{"media_key":"3_1","width":"640","height":1e3}]},
         "errors":"none"}
        """;

    PostLookup lookup = PostLookup.parse(answer.getBytes(StandardCharsets.UTF_8));

    Post post = lookup.found().get(0);
    assertThat(post.id()).isEqualTo("7");
    assertThat(post.text()).isNull();
    assertThat(post.authorId()).isNull();
    assertThat(post.possiblySensitive()).isNull();
    assertThat(post.publicMetrics()).isNull();
    assertThat(post.referencedPosts()).isEmpty();
    assertThat(post.attachments().mediaKeys()).containsExactly("3_1");
    assertThat(post.media().get(0).width()).isEqualTo(640);
    assertThat(post.media().get(0).height()).isNull();
    assertThat(post.editHistoryPostIds()).containsExactly("7");
    assertThat(post.entities().mentions()).isEmpty();
    assertThat(post.entities().urls()).extracting(Post.Url::url).containsExactly("u");
    assertThat(lookup.found()).hasSize(1);
    assertThat(lookup.notFound()).isEmpty();
  }

  @Test
  void notAnObject_refused() {
    assertThatThrownBy(() -> PostLookup.parse("[1]".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> PostLookup.parse("{\"data\":[".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(IOException.class);
  }
}
