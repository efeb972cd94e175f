package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code /2/posts}: the lookup ({@code GET /2/posts?ids=...}, {@code GET /2/posts/{id}}, answered
 * by {@link PostView}) and the creation of posts in user context ({@code POST /2/posts}), with the
 * platform's refusals (app-only token, duplicate content, a reply the author does not allow, an
 * edit out of its hour or by another user). It keeps the posts and their media, and hands the
 * events a new post causes to the {@link ActivityRouter}: the author's {@code post.create}, the
 * replied-to author's {@code post.reply.create}, the quoted author's {@code post.quote.create}, and
 * a {@code post.mention.create} for each known user the text mentions.
 */
final class PostsResource {

  static final Duration EDIT_WINDOW = Duration.ofHours(1);
  static final Duration DUPLICATE_WINDOW = Duration.ofHours(24);

  private static final Logger log = LoggerFactory.getLogger(PostsResource.class);
  private static final Pattern ID = Pattern.compile("[0-9]{1,19}");
  private static final Pattern MENTION = Pattern.compile("(?<![A-Za-z0-9_])@([A-Za-z0-9_]{1,15})");
  private static final Set<String> REPLY_SETTINGS =
      Set.of("everyone", "following", "mentionedUsers", "subscribers", "verified");
  // Body fields the platform accepts that the simulator takes without acting on them.
  private static final Set<String> BODY_FIELDS =
      Set.of(
          "text",
          "reply",
          "quote_post_id",
          "media",
          "reply_settings",
          "community_id",
          "share_with_followers",
          "paid_partnership",
          "edit_options",
          "for_super_followers_only",
          "direct_message_deep_link",
          "geo",
          "poll",
          "nullcast",
          "card_uri",
          "made_with_ai");

  /** A post as kept: its full object, its creation time and who may reply. */
  private record Stored(
      ObjectNode full, Instant createdAt, String replySettings, String quoted, String editOf) {}

  private final SimClock clock;
  private final Supplier<String> ids;
  private final UserDirectory users;
  private final ActivityRouter router;
  private final PostView view;

  private final Object lock = new Object();
  // Guarded by lock; notified when a post is added.
  private final Map<String, Stored> posts = new LinkedHashMap<>();
  private final Map<String, ObjectNode> media = new LinkedHashMap<>();

  PostsResource(SimClock clock, Supplier<String> ids, UserDirectory users, ActivityRouter router) {
    this.clock = clock;
    this.ids = ids;
    this.users = users;
    this.router = router;
    this.view = new PostView(this::full, users::find, this::media);
  }

  /** Routes {@code /2/posts} ({@code parts.length == 2}) and {@code /2/posts/{id}}. */
  SimResponse handle(ApiRequest request, String[] parts, String userId) {
    if (parts.length == 2) {
      return switch (request.method()) {
        case "GET" -> view.answer(request.query(), null);
        case "POST" -> create(userId, Json.parseOrNull(request.body()), true);
        default -> Api.methodNotAllowed();
      };
    }
    return request.method().equals("GET")
        ? view.answer(request.query(), parts[2])
        : Api.methodNotAllowed();
  }

  // ---------------------------------------------------------------- operations for the simulator

  /** Stores a post without causing any event, as posted before the test began. */
  String seed(String authorId, String text) {
    ObjectNode body = Json.object();
    body.put("text", text);
    SimResponse answer = create(authorId, body, false);
    if (answer.status() != 201) {
      throw new IllegalArgumentException(
          "the post was refused: " + Json.parseOrNull(answer.body()));
    }
    return Json.parseOrNull(answer.body()).path("data").path("id").asText();
  }

  /**
   * Keeps the post of an activity envelope produced elsewhere (a triggered sample) as it is, with
   * the users of its {@code includes}; an id already kept is left alone.
   */
  void remember(JsonNode envelope) {
    JsonNode data = envelope == null ? null : envelope.get("data");
    String type = data == null ? null : Json.text(data, "event_type");
    JsonNode payload = data == null ? null : data.get("payload");
    if (type == null
        || !type.startsWith("post.")
        || type.equals("post.delete")
        || payload == null
        || Json.text(payload, "id") == null
        || Json.text(payload, "author_id") == null
        || !payload.path("text").isTextual()) {
      return;
    }
    Instant now = clock.now();
    for (JsonNode user : data.path("includes").path("users")) {
      String id = Json.text(user, "id");
      String username = Json.text(user, "username");
      if (id != null && username != null) {
        users.putIfAbsent(id, username, now);
      }
    }
    ObjectNode post = payload.deepCopy();
    String id = post.get("id").asText();
    if (!post.has("edit_history_post_ids")) {
      post.putArray("edit_history_post_ids").add(id);
    }
    synchronized (lock) {
      if (posts.putIfAbsent(id, new Stored(post, now, null, null, null)) == null) {
        lock.notifyAll();
      }
    }
  }

  /** The posts of one author, oldest first. */
  List<SimulatedPost> by(String authorId) {
    synchronized (lock) {
      List<SimulatedPost> found = new ArrayList<>();
      for (Stored stored : posts.values()) {
        if (authorId.equals(Json.text(stored.full(), "author_id"))) {
          found.add(simulated(stored));
        }
      }
      return found;
    }
  }

  /**
   * Waits until the author has at least {@code count} posts.
   *
   * @throws AssertionError naming what was seen when {@code timeout} passes first
   */
  List<SimulatedPost> await(String authorId, int count, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (lock) {
      while (true) {
        List<SimulatedPost> found = by(authorId);
        long left = deadline - System.nanoTime();
        if (found.size() >= count) {
          return found;
        }
        if (left <= 0) {
          throw new AssertionError(
              "expected at least "
                  + count
                  + " post(s) by user "
                  + authorId
                  + " within "
                  + timeout
                  + " but saw "
                  + found.size()
                  + ": "
                  + found.stream().map(SimulatedPost::text).toList());
        }
        try {
          lock.wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new AssertionError("interrupted while waiting for posts by user " + authorId);
        }
      }
    }
  }

  // ---------------------------------------------------------------- create

  /**
   * Creates a post as {@code userId} (null: the app-only token) from a {@code POST /2/posts} body.
   *
   * @param events whether the new post causes events (false for seeding)
   */
  SimResponse create(String userId, JsonNode body, boolean events) {
    if (userId == null) {
      return SimResponse.problem(
          403,
          "Unsupported Authentication",
          "Authenticating with OAuth 2.0 Application-Only is forbidden for this endpoint: posting"
              + " acts for a user. Supported authentication types are [OAuth 1.0a User Context,"
              + " OAuth 2.0 User Context].",
          "unsupported-authentication");
    }
    if (body == null || !body.isObject()) {
      return invalid("body", "", "The request body must be a JSON object");
    }
    for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!BODY_FIELDS.contains(name)) {
        return invalid(name, body.get(name).toString(), "[" + name + "] is not a valid field");
      }
    }
    JsonNode textNode = body.get("text");
    if (textNode != null && !textNode.isTextual()) {
      return invalid("text", textNode.toString(), "text must be a string");
    }
    String text = textNode == null ? "" : textNode.asText();
    List<String> mediaIds = new ArrayList<>();
    JsonNode mediaNode = body.get("media");
    if (mediaNode != null) {
      JsonNode list = mediaNode.get("media_ids");
      if (list == null || !list.isArray() || list.isEmpty() || list.size() > 4) {
        return invalid(
            "media.media_ids", String.valueOf(list), "media.media_ids must hold 1 to 4 ids");
      }
      for (JsonNode id : list) {
        if (!id.isTextual() || !ID.matcher(id.asText()).matches()) {
          return invalid("media.media_ids", id.toString(), "media ids are strings of digits");
        }
        mediaIds.add(id.asText());
      }
    }
    if (text.isEmpty() && mediaIds.isEmpty()) {
      return invalid("text", "", "One of text or media is required");
    }
    String replyTo = null;
    JsonNode reply = body.get("reply");
    if (reply != null) {
      replyTo = reply.isObject() ? Json.text(reply, "in_reply_to_post_id") : null;
      if (replyTo == null || !ID.matcher(replyTo).matches()) {
        return invalid(
            "reply.in_reply_to_post_id",
            String.valueOf(reply.get("in_reply_to_post_id")),
            "reply.in_reply_to_post_id must be a post id");
      }
    }
    String quote = idField(body, "quote_post_id");
    if (quote != null && quote.isEmpty()) {
      return invalid(
          "quote_post_id", body.get("quote_post_id").toString(), "quote_post_id must be a post id");
    }
    String replySettings = null;
    if (body.has("reply_settings")) {
      replySettings = Json.text(body, "reply_settings");
      if (replySettings == null || !REPLY_SETTINGS.contains(replySettings)) {
        return invalid(
            "reply_settings",
            body.get("reply_settings").toString(),
            "reply_settings must be one of " + REPLY_SETTINGS);
      }
    }
    String community = idField(body, "community_id");
    if (community != null && community.isEmpty()) {
      return invalid(
          "community_id", body.get("community_id").toString(), "community_id must be an id");
    }
    JsonNode share = body.get("share_with_followers");
    if (share != null && (!share.isBoolean() || community == null)) {
      return invalid(
          "share_with_followers",
          share.toString(),
          "share_with_followers is a boolean and needs community_id");
    }
    JsonNode paid = body.get("paid_partnership");
    if (paid != null && !paid.isBoolean()) {
      return invalid("paid_partnership", paid.toString(), "paid_partnership is a boolean");
    }
    String editOf = null;
    JsonNode edit = body.get("edit_options");
    if (edit != null) {
      editOf = edit.isObject() ? Json.text(edit, "previous_post_id") : null;
      if (editOf == null || !ID.matcher(editOf).matches()) {
        return invalid(
            "edit_options.previous_post_id",
            String.valueOf(edit.get("previous_post_id")),
            "edit_options.previous_post_id must be a post id");
      }
    }
    Instant now = clock.now();
    String id = ids.get();
    ObjectNode post;
    List<Stored> chain = new ArrayList<>();
    Stored replied;
    Stored quoted;
    synchronized (lock) {
      replied = replyTo == null ? null : posts.get(replyTo);
      if (replyTo != null && replied == null) {
        return forbidden("You attempted to reply to a post that is deleted or not visible to you.");
      }
      if (replied != null && !mayReply(replied, userId)) {
        return forbidden(
            "Reply to this conversation is not allowed because you have not been mentioned or"
                + " otherwise engaged by the author of the post you are replying to.");
      }
      quoted = quote == null ? null : posts.get(quote);
      if (quote != null && quoted == null) {
        return forbidden("You attempted to quote a post that is deleted or not visible to you.");
      }
      if (editOf != null) {
        Stored previous = posts.get(editOf);
        if (previous == null) {
          return forbidden("You attempted to edit a post that is deleted or not visible to you.");
        }
        if (!userId.equals(Json.text(previous.full(), "author_id"))) {
          return forbidden("You may only edit your own posts.");
        }
        for (JsonNode version : previous.full().path("edit_history_post_ids")) {
          Stored kept = posts.get(version.asText());
          if (kept != null) {
            chain.add(kept);
          }
        }
        if (chain.isEmpty()) {
          chain.add(previous);
        }
        Instant original = chain.get(0).createdAt();
        if (now.isAfter(original.plus(EDIT_WINDOW))) {
          return forbidden(
              "This post can no longer be edited: edits are allowed within "
                  + EDIT_WINDOW.toMinutes()
                  + " minutes of the original post ("
                  + RegisteredWebhook.TIMESTAMP.format(original)
                  + ").");
        }
      }
      if (!text.isEmpty() && editOf == null && isDuplicate(userId, text, now)) {
        return forbidden("You are not allowed to create a post with duplicate content.");
      }
      post = build(id, userId, text, now, replied, quoted, mediaIds, community, share, paid);
      ArrayNode history = post.putArray("edit_history_post_ids");
      for (Stored version : chain) {
        history.add(version.full().get("id").asText());
      }
      history.add(id);
      for (Stored version : chain) {
        version.full().set("edit_history_post_ids", history.deepCopy());
      }
      for (String mediaId : mediaIds) {
        media.computeIfAbsent("3_" + mediaId, PostsResource::photo);
      }
      posts.put(id, new Stored(post, now, replySettings, quote, editOf));
      lock.notifyAll();
    }
    log.info("post {} created by user {}", id, userId);
    if (events) {
      publish(post, replied, quoted, editOf != null);
    }
    ObjectNode answer = Json.object();
    ObjectNode data = answer.putObject("data");
    data.put("id", id);
    data.put("text", text);
    data.set("edit_history_post_ids", post.get("edit_history_post_ids").deepCopy());
    return SimResponse.json(201, answer);
  }

  private ObjectNode build(
      String id,
      String authorId,
      String text,
      Instant now,
      Stored replied,
      Stored quoted,
      List<String> mediaIds,
      String community,
      JsonNode share,
      JsonNode paid) {
    ObjectNode post = Json.object();
    post.put("id", id);
    post.put("text", text);
    post.put("author_id", authorId);
    post.put(
        "conversation_id",
        replied == null ? id : replied.full().path("conversation_id").asText(id));
    post.put("created_at", RegisteredWebhook.TIMESTAMP.format(now));
    post.put("lang", "en");
    post.put("source", "servicehooks simulator");
    post.put("possibly_sensitive", false);
    if (replied != null) {
      post.put("in_reply_to_user_id", replied.full().get("author_id").asText());
    }
    if (!mediaIds.isEmpty()) {
      ArrayNode keys = post.putObject("attachments").putArray("media_keys");
      mediaIds.forEach(m -> keys.add("3_" + m));
    }
    if (replied != null || quoted != null) {
      ArrayNode refs = post.putArray("referenced_posts");
      if (replied != null) {
        refs.addObject().put("type", "replied_to").put("id", replied.full().get("id").asText());
      }
      if (quoted != null) {
        refs.addObject().put("type", "quoted").put("id", quoted.full().get("id").asText());
      }
    }
    ObjectNode metrics = post.putObject("public_metrics");
    metrics.put("repost_count", 0).put("reply_count", 0).put("like_count", 0).put("quote_count", 0);
    ArrayNode mentions = Json.MAPPER.createArrayNode();
    Matcher matcher = MENTION.matcher(text);
    while (matcher.find()) {
      String mentioned = users.idOf(matcher.group(1));
      if (mentioned != null) {
        mentions
            .addObject()
            .put("start", matcher.start())
            .put("end", matcher.end())
            .put("username", users.username(mentioned))
            .put("id", mentioned);
      }
    }
    if (!mentions.isEmpty()) {
      post.putObject("entities").set("mentions", mentions);
    }
    if (paid != null && paid.asBoolean()) {
      post.put("paid_partnership", true);
    }
    if (community != null) {
      post.put("community_id", community);
      if (share != null) {
        post.put("share_with_followers", share.asBoolean());
      }
    }
    return post;
  }

  /** Sends the events of a new post to the subscriptions they match. */
  private void publish(ObjectNode post, Stored replied, Stored quoted, boolean edit) {
    String author = post.get("author_id").asText();
    Map<String, ObjectNode> included = new LinkedHashMap<>();
    includeUser(included, author);
    Set<String> mentioned = new LinkedHashSet<>();
    for (JsonNode mention : post.path("entities").path("mentions")) {
      mentioned.add(mention.get("id").asText());
      includeUser(included, mention.get("id").asText());
    }
    if (replied != null) {
      includeUser(included, post.get("in_reply_to_user_id").asText());
    }
    ObjectNode includes = Json.object();
    if (!included.isEmpty()) {
      includes.putArray("users").addAll(included.values());
    }
    router.publish("post.create", author, null, post, includes);
    if (edit) {
      return; // an edit tells its author, not again everyone it mentions or answers
    }
    if (replied != null) {
      router.publish(
          "post.reply.create", replied.full().get("author_id").asText(), null, post, includes);
    }
    if (quoted != null) {
      router.publish(
          "post.quote.create", quoted.full().get("author_id").asText(), null, post, includes);
    }
    for (String user : mentioned) {
      router.publish("post.mention.create", user, null, post, includes);
    }
  }

  private void includeUser(Map<String, ObjectNode> included, String id) {
    if (included.containsKey(id)) {
      return;
    }
    ObjectNode user = users.find(id);
    ObjectNode small = Json.object().put("id", id);
    if (user != null) {
      small.put("name", user.get("name").asText()).put("username", user.get("username").asText());
    }
    included.put(id, small);
  }

  // Caller holds lock. Who may reply: everyone, unless the post limits replies to the users it
  // mentions. The simulator has no follow graph, so "following" and the others let everyone reply.
  private static boolean mayReply(Stored target, String userId) {
    if (!"mentionedUsers".equals(target.replySettings())
        || userId.equals(Json.text(target.full(), "author_id"))) {
      return true;
    }
    for (JsonNode mention : target.full().path("entities").path("mentions")) {
      if (userId.equals(Json.text(mention, "id"))) {
        return true;
      }
    }
    return false;
  }

  // Caller holds lock.
  private boolean isDuplicate(String userId, String text, Instant now) {
    for (Stored stored : posts.values()) {
      if (userId.equals(Json.text(stored.full(), "author_id"))
          && text.equals(stored.full().get("text").asText())
          && !stored.createdAt().plus(DUPLICATE_WINDOW).isBefore(now)) {
        return true;
      }
    }
    return false;
  }

  private ObjectNode full(String id) {
    synchronized (lock) {
      Stored stored = posts.get(id);
      return stored == null ? null : stored.full().deepCopy();
    }
  }

  private ObjectNode media(String key) {
    synchronized (lock) {
      ObjectNode found = media.get(key);
      return found == null ? null : found.deepCopy();
    }
  }

  private static SimulatedPost simulated(Stored stored) {
    ObjectNode full = stored.full();
    String replyTo = null;
    for (JsonNode ref : full.path("referenced_posts")) {
      if ("replied_to".equals(Json.text(ref, "type"))) {
        replyTo = Json.text(ref, "id");
      }
    }
    return new SimulatedPost(
        full.get("id").asText(),
        full.get("author_id").asText(),
        full.get("text").asText(),
        stored.createdAt(),
        replyTo,
        stored.quoted(),
        stored.editOf(),
        Json.string(full));
  }

  private static ObjectNode photo(String key) {
    ObjectNode photo = Json.object();
    photo.put("media_key", key);
    photo.put("type", "photo");
    photo.put("url", "https://pbs.example.com/media/" + key + ".jpg");
    photo.put("width", 1200);
    photo.put("height", 675);
    photo.put("alt_text", "");
    return photo;
  }

  /** A string id field: null when absent, empty when present but not an id. */
  private static String idField(JsonNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null) {
      return null;
    }
    return value.isTextual() && ID.matcher(value.asText()).matches() ? value.asText() : "";
  }

  static SimResponse invalid(String field, String value, String message) {
    ObjectNode body = Json.object();
    ObjectNode error = body.putArray("errors").addObject();
    error.putObject("parameters").putArray(field).add(value);
    error.put("message", message);
    body.put("title", "Invalid Request");
    body.put("detail", "One or more parameters to your request was invalid.");
    body.put("type", SimResponse.PROBLEM_BASE + "invalid-request");
    return SimResponse.json(400, body);
  }

  private static SimResponse forbidden(String detail) {
    return SimResponse.problem(403, "Forbidden", detail, "about:blank");
  }
}
