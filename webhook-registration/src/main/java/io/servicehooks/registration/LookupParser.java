package io.servicehooks.registration;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a lookup answer's bytes straight into the records, with Jackson's streaming parser: no tree
 * is built. Each post, user and media item keeps its byte range of the answer as {@link RawJson},
 * parsed into a tree only when asked. The {@code includes} are resolved once the whole answer is
 * read, since the platform may send them before or after {@code data}.
 *
 * <p>Every field of the records is read whatever its JSON type: a value of an unexpected type is
 * skipped as absent (null), never a failure of the whole answer, and unknown fields are skipped.
 */
final class LookupParser {

  private final byte[] bytes;
  private final JsonParser p;
  private final List<PostParts> data = new ArrayList<>();
  private final Map<String, PostParts> includedPosts = new HashMap<>();
  private final Map<String, User> users = new HashMap<>();
  private final Map<String, Media> media = new HashMap<>();
  private final List<NotFound> notFound = new ArrayList<>();
  private final Map<String, Post> resolvedIncluded = new HashMap<>();

  private LookupParser(byte[] bytes, JsonParser p) {
    this.bytes = bytes;
    this.p = p;
  }

  static PostLookup parse(byte[] bytes) throws IOException {
    try (JsonParser p = Responses.JSON.getFactory().createParser(bytes)) {
      return new LookupParser(bytes, p).answer();
    }
  }

  private PostLookup answer() throws IOException {
    if (p.nextToken() != JsonToken.START_OBJECT) {
      throw new IOException("a lookup answer is a JSON object");
    }
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      switch (name) {
        case "data" -> {
          if (value == JsonToken.START_ARRAY) {
            while (p.nextToken() == JsonToken.START_OBJECT) {
              data.add(post());
            }
            skipRest();
          } else if (value == JsonToken.START_OBJECT) {
            data.add(post());
          } else {
            p.skipChildren();
          }
        }
        case "includes" -> includes(value);
        case "errors" -> errors(value);
        default -> p.skipChildren();
      }
    }
    List<Post> found = new ArrayList<>(data.size());
    for (PostParts parts : data) {
      found.add(parts.resolved(this, true));
    }
    return new PostLookup(found, notFound, List.of(new RawJson(bytes, 0, bytes.length)));
  }

  private void includes(JsonToken value) throws IOException {
    if (value != JsonToken.START_OBJECT) {
      p.skipChildren();
      return;
    }
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      if (p.nextToken() != JsonToken.START_ARRAY) {
        p.skipChildren();
        continue;
      }
      switch (name) {
        case "users" -> {
          while (p.nextToken() == JsonToken.START_OBJECT) {
            User user = user();
            if (user.id() != null) {
              users.putIfAbsent(user.id(), user);
            }
          }
          skipRest();
        }
        case "media" -> {
          while (p.nextToken() == JsonToken.START_OBJECT) {
            Media item = media();
            if (item.mediaKey() != null) {
              media.putIfAbsent(item.mediaKey(), item);
            }
          }
          skipRest();
        }
        case "posts" -> {
          while (p.nextToken() == JsonToken.START_OBJECT) {
            PostParts post = post();
            if (post.id != null) {
              includedPosts.putIfAbsent(post.id, post);
            }
          }
          skipRest();
        }
        default -> p.skipChildren();
      }
    }
  }

  private void errors(JsonToken value) throws IOException {
    if (value != JsonToken.START_ARRAY) {
      p.skipChildren();
      return;
    }
    while (true) {
      JsonToken token = p.nextToken();
      if (token == JsonToken.END_ARRAY || token == null) {
        return;
      }
      if (token != JsonToken.START_OBJECT) {
        p.skipChildren();
        continue;
      }
      String resourceId = null;
      String valueText = null;
      String detail = null;
      String title = null;
      String type = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        p.nextToken();
        switch (name) {
          case "resource_id" -> resourceId = string();
          case "value" -> valueText = string();
          case "detail" -> detail = string();
          case "title" -> title = string();
          case "type" -> type = string();
          default -> p.skipChildren();
        }
      }
      String id = resourceId != null ? resourceId : valueText;
      if (id != null) {
        notFound.add(new NotFound(id, detail, title, type));
      }
    }
  }

  /** After the objects of an array: skips anything else up to its end. */
  private void skipRest() throws IOException {
    JsonToken token = p.currentToken();
    while (token != JsonToken.END_ARRAY && token != null) {
      p.skipChildren();
      token = p.nextToken();
    }
  }

  // ---- posts

  /** What a post's JSON said, before its includes are resolved. */
  private static final class PostParts {
    String id;
    String text;
    String authorId;
    Instant createdAt;
    String conversationId;
    String lang;
    String source;
    Boolean possiblySensitive;
    String inReplyToUserId;
    List<String[]> references; // {type, id}
    Post.Attachments attachments;
    Post.Metrics metrics;
    Post.Entities entities;
    List<Post.ContextAnnotation> contextAnnotations;
    Boolean paidPartnership;
    String communityId;
    List<String> editHistory;
    RawJson json;

    /**
     * The record, author and media taken from the includes; the referenced posts too when {@code
     * deep} (a post of {@code data}), as ids only otherwise (a post of {@code includes}).
     */
    Post resolved(LookupParser answer, boolean deep) {
      List<Post.ReferencedPost> refs;
      if (references == null) {
        refs = List.of();
      } else {
        refs = new ArrayList<>(references.size());
        for (String[] ref : references) {
          Post post = deep ? answer.includedPost(ref[1]) : null;
          refs.add(new Post.ReferencedPost(ref[0], ref[1], post));
        }
      }
      List<Media> items;
      if (attachments == null || attachments.mediaKeys().isEmpty()) {
        items = List.of();
      } else {
        items = new ArrayList<>(attachments.mediaKeys().size());
        for (String key : attachments.mediaKeys()) {
          Media item = answer.media.get(key);
          if (item != null) {
            items.add(item);
          }
        }
      }
      return new Post(
          id,
          text,
          authorId,
          createdAt,
          conversationId,
          lang,
          source,
          possiblySensitive,
          inReplyToUserId,
          refs,
          attachments,
          metrics,
          entities,
          contextAnnotations,
          paidPartnership,
          communityId,
          editHistory,
          authorId == null ? null : answer.users.get(authorId),
          items,
          json);
    }
  }

  private Post includedPost(String id) {
    if (id == null) {
      return null;
    }
    Post post = resolvedIncluded.get(id);
    if (post == null) {
      PostParts parts = includedPosts.get(id);
      if (parts == null) {
        return null;
      }
      post = parts.resolved(this, false);
      resolvedIncluded.put(id, post);
    }
    return post;
  }

  /** Reads one post object; the parser is on its START_OBJECT and ends on its END_OBJECT. */
  private PostParts post() throws IOException {
    int start = (int) p.currentTokenLocation().getByteOffset();
    PostParts post = new PostParts();
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      switch (name) {
        case "id" -> post.id = string();
        case "text" -> post.text = string();
        case "author_id" -> post.authorId = string();
        case "created_at" -> post.createdAt = instant(string());
        case "conversation_id" -> post.conversationId = string();
        case "lang" -> post.lang = string();
        case "source" -> post.source = string();
        case "possibly_sensitive" -> post.possiblySensitive = bool();
        case "in_reply_to_user_id" -> post.inReplyToUserId = string();
        case "referenced_posts" -> post.references = references();
        case "attachments" -> post.attachments = attachments();
        case "public_metrics" -> post.metrics = postMetrics();
        case "entities" -> post.entities = entities();
        case "context_annotations" -> post.contextAnnotations = contextAnnotations();
        case "paid_partnership" -> post.paidPartnership = bool();
        case "community_id" -> post.communityId = string();
        case "edit_history_post_ids" -> post.editHistory = strings();
        default -> p.skipChildren();
      }
    }
    post.json = raw(start);
    return post;
  }

  private RawJson raw(int start) {
    int end = (int) p.currentLocation().getByteOffset();
    return new RawJson(bytes, start, end - start);
  }

  private List<String[]> references() throws IOException {
    if (p.currentToken() != JsonToken.START_ARRAY) {
      p.skipChildren();
      return null;
    }
    List<String[]> refs = new ArrayList<>(2);
    while (true) {
      JsonToken token = p.nextToken();
      if (token == JsonToken.END_ARRAY || token == null) {
        return refs;
      }
      if (token != JsonToken.START_OBJECT) {
        p.skipChildren();
        continue;
      }
      String type = null;
      String id = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        p.nextToken();
        switch (name) {
          case "type" -> type = string();
          case "id" -> id = string();
          default -> p.skipChildren();
        }
      }
      if (id != null) {
        refs.add(new String[] {type, id});
      }
    }
  }

  private Post.Attachments attachments() throws IOException {
    if (p.currentToken() != JsonToken.START_OBJECT) {
      p.skipChildren();
      return null;
    }
    List<String> mediaKeys = null;
    List<String> pollIds = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      switch (name) {
        case "media_keys" -> mediaKeys = strings();
        case "poll_ids" -> pollIds = strings();
        default -> p.skipChildren();
      }
    }
    return new Post.Attachments(mediaKeys, pollIds);
  }

  private Post.Metrics postMetrics() throws IOException {
    if (p.currentToken() != JsonToken.START_OBJECT) {
      p.skipChildren();
      return null;
    }
    Long reposts = null;
    Long retweets = null;
    Long replies = null;
    Long likes = null;
    Long quotes = null;
    Long bookmarks = null;
    Long impressions = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      switch (name) {
        case "repost_count" -> reposts = number();
        case "retweet_count" -> retweets = number();
        case "reply_count" -> replies = number();
        case "like_count" -> likes = number();
        case "quote_count" -> quotes = number();
        case "bookmark_count" -> bookmarks = number();
        case "impression_count" -> impressions = number();
        default -> p.skipChildren();
      }
    }
    return new Post.Metrics(
        reposts != null ? reposts : retweets, replies, likes, quotes, bookmarks, impressions);
  }

  private Post.Entities entities() throws IOException {
    if (p.currentToken() != JsonToken.START_OBJECT) {
      p.skipChildren();
      return null;
    }
    List<Post.Mention> mentions = null;
    List<Post.Url> urls = null;
    List<Post.Tag> hashtags = null;
    List<Post.Tag> cashtags = null;
    List<Post.Annotation> annotations = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      if (value != JsonToken.START_ARRAY) {
        p.skipChildren();
        continue;
      }
      switch (name) {
        case "mentions" -> mentions = entityList(this::mention);
        case "urls" -> urls = entityList(this::url);
        case "hashtags" -> hashtags = entityList(this::tag);
        case "cashtags" -> cashtags = entityList(this::tag);
        case "annotations" -> annotations = entityList(this::annotation);
        default -> p.skipChildren();
      }
    }
    return new Post.Entities(mentions, urls, hashtags, cashtags, annotations);
  }

  @FunctionalInterface
  private interface ObjectReader<T> {
    /** Reads the object whose fields follow; the parser ends on its END_OBJECT. */
    T read() throws IOException;
  }

  /** The objects of the array the parser is on, each read by {@code reader}; others skipped. */
  private <T> List<T> entityList(ObjectReader<T> reader) throws IOException {
    List<T> items = new ArrayList<>(2);
    while (true) {
      JsonToken token = p.nextToken();
      if (token == JsonToken.END_ARRAY || token == null) {
        return items;
      }
      if (token == JsonToken.START_OBJECT) {
        items.add(reader.read());
      } else {
        p.skipChildren();
      }
    }
  }

  private Post.Mention mention() throws IOException {
    Integer start = null;
    Integer end = null;
    String username = null;
    String id = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      switch (name) {
        case "start" -> start = integer();
        case "end" -> end = integer();
        case "username" -> username = string();
        case "id" -> id = string();
        default -> p.skipChildren();
      }
    }
    return new Post.Mention(start, end, username, id);
  }

  private Post.Url url() throws IOException {
    Integer start = null;
    Integer end = null;
    String url = null;
    String expanded = null;
    String display = null;
    String mediaKey = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      switch (name) {
        case "start" -> start = integer();
        case "end" -> end = integer();
        case "url" -> url = string();
        case "expanded_url" -> expanded = string();
        case "display_url" -> display = string();
        case "media_key" -> mediaKey = string();
        default -> p.skipChildren();
      }
    }
    return new Post.Url(start, end, url, expanded, display, mediaKey);
  }

  private Post.Tag tag() throws IOException {
    Integer start = null;
    Integer end = null;
    String tag = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      switch (name) {
        case "start" -> start = integer();
        case "end" -> end = integer();
        case "tag" -> tag = string();
        default -> p.skipChildren();
      }
    }
    return new Post.Tag(start, end, tag);
  }

  private Post.Annotation annotation() throws IOException {
    Integer start = null;
    Integer end = null;
    Double probability = null;
    String type = null;
    String normalized = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      switch (name) {
        case "start" -> start = integer();
        case "end" -> end = integer();
        case "probability" ->
            probability =
                value == JsonToken.VALUE_NUMBER_FLOAT || value == JsonToken.VALUE_NUMBER_INT
                    ? p.getDoubleValue()
                    : null;
        case "type" -> type = string();
        case "normalized_text" -> normalized = string();
        default -> p.skipChildren();
      }
    }
    return new Post.Annotation(start, end, probability, type, normalized);
  }

  private List<Post.ContextAnnotation> contextAnnotations() throws IOException {
    if (p.currentToken() != JsonToken.START_ARRAY) {
      p.skipChildren();
      return null;
    }
    return entityList(
        () -> {
          Post.Named domain = null;
          Post.Named entity = null;
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            p.nextToken();
            switch (name) {
              case "domain" -> domain = named();
              case "entity" -> entity = named();
              default -> p.skipChildren();
            }
          }
          return new Post.ContextAnnotation(domain, entity);
        });
  }

  private Post.Named named() throws IOException {
    if (p.currentToken() != JsonToken.START_OBJECT) {
      p.skipChildren();
      return null;
    }
    String id = null;
    String name = null;
    String description = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      p.nextToken();
      switch (field) {
        case "id" -> id = string();
        case "name" -> name = string();
        case "description" -> description = string();
        default -> p.skipChildren();
      }
    }
    return new Post.Named(id, name, description);
  }

  // ---- users and media

  private User user() throws IOException {
    int start = (int) p.currentTokenLocation().getByteOffset();
    String id = null;
    String name = null;
    String username = null;
    Instant createdAt = null;
    String description = null;
    String location = null;
    String url = null;
    Boolean isProtected = null;
    Boolean verified = null;
    String profileImageUrl = null;
    String pinnedPostId = null;
    User.Metrics metrics = null;
    User.Affiliation affiliation = null;
    List<String> connectionStatus = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String field = p.currentName();
      p.nextToken();
      switch (field) {
        case "id" -> id = string();
        case "name" -> name = string();
        case "username" -> username = string();
        case "created_at" -> createdAt = instant(string());
        case "description" -> description = string();
        case "location" -> location = string();
        case "url" -> url = string();
        case "protected" -> isProtected = bool();
        case "verified" -> verified = bool();
        case "profile_image_url" -> profileImageUrl = string();
        case "pinned_post_id" -> pinnedPostId = string();
        case "public_metrics" -> metrics = userMetrics();
        case "affiliation" -> affiliation = affiliation();
        case "connection_status" -> connectionStatus = strings();
        default -> p.skipChildren();
      }
    }
    return new User(
        id,
        name,
        username,
        createdAt,
        description,
        location,
        url,
        isProtected,
        verified,
        profileImageUrl,
        pinnedPostId,
        metrics,
        affiliation,
        connectionStatus,
        raw(start));
  }

  private User.Metrics userMetrics() throws IOException {
    if (p.currentToken() != JsonToken.START_OBJECT) {
      p.skipChildren();
      return null;
    }
    Long followers = null;
    Long following = null;
    Long posts = null;
    Long tweets = null;
    Long listed = null;
    Long likes = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      switch (name) {
        case "followers_count" -> followers = number();
        case "following_count" -> following = number();
        case "post_count" -> posts = number();
        case "tweet_count" -> tweets = number();
        case "listed_count" -> listed = number();
        case "like_count" -> likes = number();
        default -> p.skipChildren();
      }
    }
    return new User.Metrics(followers, following, posts != null ? posts : tweets, listed, likes);
  }

  private User.Affiliation affiliation() throws IOException {
    if (p.currentToken() != JsonToken.START_OBJECT) {
      p.skipChildren();
      return null;
    }
    List<String> userIds = null;
    String description = null;
    String url = null;
    String badgeUrl = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      p.nextToken();
      switch (name) {
        case "user_id" -> userIds = strings();
        case "description" -> description = string();
        case "url" -> url = string();
        case "badge_url" -> badgeUrl = string();
        default -> p.skipChildren();
      }
    }
    return new User.Affiliation(userIds, description, url, badgeUrl);
  }

  private Media media() throws IOException {
    int start = (int) p.currentTokenLocation().getByteOffset();
    String key = null;
    String type = null;
    String url = null;
    String preview = null;
    Integer width = null;
    Integer height = null;
    Long duration = null;
    String alt = null;
    Long views = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      switch (name) {
        case "media_key" -> key = string();
        case "type" -> type = string();
        case "url" -> url = string();
        case "preview_image_url" -> preview = string();
        case "width" -> width = integer();
        case "height" -> height = integer();
        case "duration_ms" -> duration = number();
        case "alt_text" -> alt = string();
        case "public_metrics" -> {
          if (value != JsonToken.START_OBJECT) {
            p.skipChildren();
            continue;
          }
          while (p.nextToken() == JsonToken.FIELD_NAME) {
            String metric = p.currentName();
            p.nextToken();
            if (metric.equals("view_count")) {
              views = number();
            } else {
              p.skipChildren();
            }
          }
        }
        default -> p.skipChildren();
      }
    }
    return new Media(key, type, url, preview, width, height, duration, alt, views, raw(start));
  }

  // ---- values

  /** The current value as text (a string, or a number's or boolean's text); else null, skipped. */
  private String string() throws IOException {
    JsonToken token = p.currentToken();
    if (token == JsonToken.VALUE_STRING
        || token == JsonToken.VALUE_NUMBER_INT
        || token == JsonToken.VALUE_NUMBER_FLOAT
        || token == JsonToken.VALUE_TRUE
        || token == JsonToken.VALUE_FALSE) {
      return p.getText();
    }
    p.skipChildren();
    return null;
  }

  /** The current value as a whole number (a number, or a string of digits); else null. */
  private Long number() throws IOException {
    JsonToken token = p.currentToken();
    if (token == JsonToken.VALUE_NUMBER_INT) {
      return p.getNumberType() == JsonParser.NumberType.BIG_INTEGER ? null : p.getLongValue();
    }
    if (token == JsonToken.VALUE_STRING) {
      String text = p.getText();
      if (!text.isEmpty() && text.length() < 19 && text.chars().allMatch(Character::isDigit)) {
        return Long.parseLong(text);
      }
      return null;
    }
    p.skipChildren();
    return null;
  }

  private Integer integer() throws IOException {
    Long value = number();
    return value == null || value > Integer.MAX_VALUE ? null : value.intValue();
  }

  private Boolean bool() throws IOException {
    JsonToken token = p.currentToken();
    if (token == JsonToken.VALUE_TRUE) {
      return Boolean.TRUE;
    }
    if (token == JsonToken.VALUE_FALSE) {
      return Boolean.FALSE;
    }
    if (token == JsonToken.VALUE_STRING) {
      String text = p.getText();
      return text.equals("true") ? Boolean.TRUE : text.equals("false") ? Boolean.FALSE : null;
    }
    p.skipChildren();
    return null;
  }

  /** An array of strings (other items skipped); a single string as a list of one. */
  private List<String> strings() throws IOException {
    JsonToken token = p.currentToken();
    if (token != JsonToken.START_ARRAY) {
      String one = string();
      return one == null ? null : List.of(one);
    }
    List<String> values = new ArrayList<>(2);
    while ((token = p.nextToken()) != JsonToken.END_ARRAY && token != null) {
      String value = string();
      if (value != null) {
        values.add(value);
      }
    }
    return values;
  }

  /**
   * The platform's times, {@code 2020-05-12T19:44:51.000Z}, read digit by digit ({@link
   * Instant#parse} costs more than the rest of a post); any other form through {@link
   * Instant#parse} or {@link OffsetDateTime#parse}.
   */
  static Instant instant(String text) {
    if (text == null) {
      return null;
    }
    if (text.length() == 24
        && text.charAt(4) == '-'
        && text.charAt(7) == '-'
        && text.charAt(10) == 'T'
        && text.charAt(13) == ':'
        && text.charAt(16) == ':'
        && text.charAt(19) == '.'
        && text.charAt(23) == 'Z') {
      int year = digits(text, 0, 4);
      int month = digits(text, 5, 7);
      int day = digits(text, 8, 10);
      int hour = digits(text, 11, 13);
      int minute = digits(text, 14, 16);
      int second = digits(text, 17, 19);
      int millis = digits(text, 20, 23);
      if (year >= 0
          && month >= 1
          && month <= 12
          && day >= 1
          && day <= 31
          && hour >= 0
          && hour <= 23
          && minute >= 0
          && minute <= 59
          && second >= 0
          && second <= 59
          && millis >= 0) {
        try {
          long days = java.time.LocalDate.of(year, month, day).toEpochDay();
          return Instant.ofEpochSecond(
              days * 86_400L + hour * 3600L + minute * 60L + second, millis * 1_000_000L);
        } catch (java.time.DateTimeException noSuchDay) {
          return null;
        }
      }
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException notInstant) {
      try {
        return OffsetDateTime.parse(text).toInstant();
      } catch (DateTimeParseException notOffset) {
        return null;
      }
    }
  }

  /** The decimal number of {@code text[from, to)}, or -1 when a character is not a digit. */
  private static int digits(String text, int from, int to) {
    int value = 0;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
  }
}
