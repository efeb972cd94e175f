package io.servicehooks.registration;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Posts: look them up ({@code GET /2/posts}) and create them ({@code POST /2/posts}). From {@link
 * WebhookClient#posts()} the calls carry the app-only bearer token, which may look up but not post;
 * from {@link UserClient#posts()} they act for the user (OAuth 1.0a), which may do both.
 *
 * <pre>{@code
 * PostLookup answer = client.posts().lookup(List.of(postId),
 *     PostQuery.none().postFields(PostField.AUTHOR_ID).expansions(Expansion.AUTHOR_ID));
 * for (Post post : answer.found()) {
 *   asBot.posts().create(NewPost.text("@" + post.author().username() + " thanks!").replyTo(post.id()));
 * }
 * }</pre>
 *
 * <p>A lookup is a read: a 429 or a 5xx is retried within the client's limits. A create is not
 * repeatable (a repeat may post twice): it is sent once, and any refusal, a 429 included, comes
 * back at once as a {@link WebhookApiException} with its {@link WebhookApiException.Reason} and,
 * for a 429, {@link WebhookApiException#rateLimitReset()}; a lost answer is an {@link IOException}
 * and is not repeated.
 *
 * <p>Immutable and thread-safe.
 */
public final class Posts {

  /** The most ids one lookup request carries; more are split into several requests. */
  public static final int MAX_IDS_PER_REQUEST = 100;

  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  private final ApiCaller api;
  private final boolean userContext;
  private final CallObserver observer;

  Posts(ApiCaller api, boolean userContext, CallObserver observer) {
    this.api = api;
    this.userContext = userContext;
    this.observer = observer;
  }

  /**
   * Looks posts up by their ids ({@code GET /2/posts?ids=...}), 100 per request: more ids are split
   * into requests of 100 and their answers merged, in order. An id asked twice is asked once.
   *
   * @param ids the posts' ids, at least one
   * @param query the fields and expansions to ask for ({@link PostQuery#none()} for id and text)
   * @return the posts found and, beside them, a {@link NotFound} per id that found none (never a
   *     failure of the whole call)
   * @throws IllegalArgumentException for no ids, or an id that is empty or not made of letters,
   *     digits, {@code _} and {@code -}
   * @throws WebhookApiException when the platform refuses the request: a 400 names the parameter
   *     ({@link WebhookApiException#parameters()}), such as an unknown field
   */
  public PostLookup lookup(Collection<String> ids, PostQuery query) throws IOException {
    Objects.requireNonNull(ids, "ids");
    Objects.requireNonNull(query, "query");
    if (ids.isEmpty()) {
      throw new IllegalArgumentException("a lookup needs at least one post id");
    }
    LinkedHashSet<String> distinct = new LinkedHashSet<>();
    for (String id : ids) {
      distinct.add(checkedId(id));
    }
    List<String> all = new ArrayList<>(distinct);
    String fields = query.queryString();
    List<PostLookup> parts = new ArrayList<>((all.size() + MAX_IDS_PER_REQUEST - 1) / 100);
    for (int from = 0; from < all.size(); from += MAX_IDS_PER_REQUEST) {
      List<String> batch = all.subList(from, Math.min(all.size(), from + MAX_IDS_PER_REQUEST));
      String path =
          "/2/posts?ids=" + String.join("%2C", batch) + (fields.isEmpty() ? "" : "&" + fields);
      parts.add(read(path));
    }
    return PostLookup.merged(parts);
  }

  /** Looks posts up with {@link PostQuery#none()}: only their id and text. */
  public PostLookup lookup(Collection<String> ids) throws IOException {
    return lookup(ids, PostQuery.none());
  }

  /**
   * Looks one post up ({@code GET /2/posts/{id}}).
   *
   * @return the post, or empty when the platform found none (the answer's {@code errors}: see
   *     {@link #lookup} for the details)
   */
  public Optional<Post> get(String id, PostQuery query) throws IOException {
    Objects.requireNonNull(query, "query");
    String fields = query.queryString();
    PostLookup answer = read("/2/posts/" + checkedId(id) + (fields.isEmpty() ? "" : "?" + fields));
    return answer.found().isEmpty() ? Optional.empty() : Optional.of(answer.found().get(0));
  }

  private PostLookup read(String path) throws IOException {
    ApiResponse response =
        observer.observe("GET /2/posts", () -> api.call("GET", path, null, ApiCaller.Repeat.SAFE));
    try {
      return PostLookup.parse(response.body());
    } catch (IOException notAnAnswer) {
      throw ApiErrors.unexpected(response, "the answer is not a post lookup's JSON object");
    }
  }

  /**
   * Creates a post for the user ({@code POST /2/posts}, JSON body), once: never repeated
   * automatically, since a repeat of a request that reached the platform may post twice.
   *
   * @throws IllegalStateException before any request, from the app-only client: posting acts for a
   *     user ({@link WebhookClient#forUser})
   * @throws IllegalArgumentException before any request, for a post with neither text nor media, or
   *     an edit whose original, by the client's clock, was created more than {@link
   *     NewPost#EDIT_WINDOW} ago
   * @throws WebhookApiException when the platform refuses it: {@link
   *     WebhookApiException.Reason#DUPLICATE_CONTENT}, {@link
   *     WebhookApiException.Reason#NOT_PERMITTED} (a reply or an edit not allowed), {@link
   *     WebhookApiException.Reason#TOKEN_INVALID} (the user must sign in again), {@link
   *     WebhookApiException.Reason#RATE_LIMITED} with {@link WebhookApiException#rateLimitReset()},
   *     or another reason with the platform's message
   */
  public CreatedPost create(NewPost post) throws IOException {
    Objects.requireNonNull(post, "post");
    if (!userContext) {
      throw new IllegalStateException(
          "posting acts for a user: create posts through client.forUser(credentials).posts(),"
              + " not with the app-only token");
    }
    byte[] body = Responses.bytes(post.body());
    if (post.previousPostId() != null && post.originalCreatedAt() != null) {
      Instant now = api.clock().instant();
      Duration age = Duration.between(post.originalCreatedAt(), now);
      if (age.compareTo(NewPost.EDIT_WINDOW) > 0) {
        throw new IllegalArgumentException(
            "post "
                + post.previousPostId()
                + " was created "
                + age.toMinutes()
                + " minutes ago: a post may be edited within "
                + NewPost.EDIT_WINDOW.toMinutes()
                + " minutes of its creation only");
      }
    }
    ApiResponse response =
        observer.observe(
            "POST /2/posts", () -> api.call("POST", "/2/posts", body, ApiCaller.Repeat.NEVER));
    JsonNode data = Responses.parse(response).path("data");
    String id = Responses.text(data, "id");
    if (id == null) {
      throw ApiErrors.unexpected(response, "the answer names no id of the created post");
    }
    List<String> history = new ArrayList<>();
    JsonNode ids = data.get("edit_history_post_ids");
    if (ids != null && ids.isArray()) {
      ids.forEach(node -> history.add(node.asText()));
    }
    return new CreatedPost(id, Responses.text(data, "text"), history);
  }

  static String checkedId(String id) {
    if (id == null || !ID.matcher(id).matches()) {
      throw new IllegalArgumentException(
          "an id is 1 to 64 letters, digits, '_' or '-', was: "
              + (id == null ? "null" : io.servicehooks.core.internal.LogText.of(id)));
    }
    return id;
  }

  @Override
  public String toString() {
    return "Posts[" + (userContext ? "user context" : "app-only") + "]";
  }
}
