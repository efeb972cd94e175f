package io.servicehooks.registration;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * The lookup's parser against answers the platform published (test resources under {@code
 * published/}, their sources named in its README): every value the records give is the value
 * Jackson's own tree reads from the same bytes.
 */
final class PublishedAnswersTest {

  private static final ObjectMapper TREE = new ObjectMapper();

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = PublishedAnswersTest.class.getResourceAsStream("/published/" + name)) {
      assertThat(in).as(name).isNotNull();
      return in.readAllBytes();
    }
  }

  @Test
  void defaultFields_idAndTextOnly_othersNull() throws IOException {
    byte[] bytes = resource("lookup-default.json");
    JsonNode expected = TREE.readTree(bytes).get("data").get(0);

    PostLookup lookup = PostLookup.parse(bytes);

    assertThat(lookup.found()).hasSize(1);
    assertThat(lookup.notFound()).isEmpty();
    Post post = lookup.found().get(0);
    assertThat(post.id()).isEqualTo(expected.get("id").asText());
    assertThat(post.text()).isEqualTo(expected.get("text").asText()).contains("\n\nNow on iOS");
    assertThat(post.authorId()).isNull();
    assertThat(post.createdAt()).isNull();
    assertThat(post.publicMetrics()).isNull();
    assertThat(post.attachments()).isNull();
    assertThat(post.author()).isNull();
    assertThat(post.media()).isEmpty();
    assertThat(post.referencedPosts()).isEmpty();
    assertThat(post.raw()).isEqualTo(expected);
    assertThat(lookup.raw()).isEqualTo(TREE.readTree(bytes));
  }

  @Test
  void postFields_everyValueAsJacksonsTreeReadsIt() throws IOException {
    byte[] bytes = resource("lookup-fields.json");
    JsonNode expected = TREE.readTree(bytes).get("data").get(0);

    Post post = PostLookup.parse(bytes).found().get(0);

    assertThat(post.id()).isEqualTo(expected.get("id").asText());
    assertThat(post.text()).isEqualTo(expected.get("text").asText());
    assertThat(post.authorId()).isEqualTo(expected.get("author_id").asText());
    assertThat(post.source()).isEqualTo(expected.get("source").asText());
    assertThat(post.createdAt()).isEqualTo(Instant.parse(expected.get("created_at").asText()));
    JsonNode metrics = expected.get("public_metrics");
    assertThat(post.publicMetrics().repostCount()).isEqualTo(metrics.get("repost_count").asLong());
    assertThat(post.publicMetrics().replyCount()).isEqualTo(metrics.get("reply_count").asLong());
    assertThat(post.publicMetrics().likeCount()).isEqualTo(metrics.get("like_count").asLong());
    assertThat(post.publicMetrics().quoteCount()).isEqualTo(metrics.get("quote_count").asLong());
    assertThat(post.publicMetrics().bookmarkCount()).isNull();
    assertThat(post.attachments().mediaKeys())
        .containsExactly(expected.get("attachments").get("media_keys").get(0).asText());
    // media_keys without the media expansion: nothing to resolve
    assertThat(post.media()).isEmpty();
    assertThat(post.raw()).isEqualTo(expected);
  }

  @Test
  void authorExpansion_singleObjectData_authorResolvedFromIncludes() throws IOException {
    byte[] bytes = resource("expansions-author.json");
    JsonNode tree = TREE.readTree(bytes);
    JsonNode expectedUser = tree.get("includes").get("users").get(0);

    PostLookup lookup = PostLookup.parse(bytes);

    Post post = lookup.found().get(0);
    assertThat(post.id()).isEqualTo(tree.get("data").get("id").asText());
    assertThat(post.authorId()).isEqualTo(tree.get("data").get("author_id").asText());
    User author = post.author();
    assertThat(author).isNotNull();
    assertThat(author.id()).isEqualTo(expectedUser.get("id").asText()).isEqualTo(post.authorId());
    assertThat(author.name()).isEqualTo(expectedUser.get("name").asText());
    assertThat(author.username()).isEqualTo(expectedUser.get("username").asText());
    assertThat(author.publicMetrics()).isNull();
    assertThat(author.raw()).isEqualTo(expectedUser);
    assertThat(lookup.find("1234567890")).contains(post);
  }
}
