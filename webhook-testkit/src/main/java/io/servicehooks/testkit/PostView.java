package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The answer of the post lookup under the platform's field rules: without fields a post is only
 * {@code id} and {@code text}; {@code post.fields}, {@code user.fields} and {@code media.fields}
 * add the named fields the object has; {@code expansions} put the referred objects under {@code
 * includes}, each once; a missing id is one {@code errors} entry; a malformed request is a 400
 * whose {@code errors[].parameters} names the parameter. Pure: it reads the stored objects through
 * the lookups it is given.
 */
final class PostView {

  static final int MAX_IDS = 100;

  static final Set<String> POST_FIELDS =
      Set.of(
          "id",
          "text",
          "author_id",
          "conversation_id",
          "created_at",
          "lang",
          "source",
          "possibly_sensitive",
          "in_reply_to_user_id",
          "attachments",
          "referenced_posts",
          "public_metrics",
          "entities",
          "context_annotations",
          "paid_partnership",
          "community_id",
          "edit_history_post_ids");
  static final Set<String> USER_FIELDS =
      Set.of(
          "id",
          "name",
          "username",
          "created_at",
          "description",
          "location",
          "url",
          "protected",
          "verified",
          "profile_image_url",
          "pinned_post_id",
          "entities",
          "public_metrics",
          "affiliation",
          "connection_status");
  static final Set<String> MEDIA_FIELDS =
      Set.of(
          "media_key",
          "type",
          "duration_ms",
          "public_metrics",
          "url",
          "preview_image_url",
          "width",
          "height",
          "alt_text");
  static final Set<String> EXPANSIONS =
      Set.of(
          "author_id",
          "attachments.media_keys",
          "referenced_posts.id",
          "referenced_posts.id.author_id",
          "in_reply_to_user_id",
          "entities.mentions.username",
          "edit_history_post_ids");

  private static final Pattern ID = Pattern.compile("[0-9]{1,19}");
  private static final String NOT_FOUND_TYPE = SimResponse.PROBLEM_BASE + "resource-not-found";

  private final Function<String, ObjectNode> posts;
  private final Function<String, ObjectNode> users;
  private final Function<String, ObjectNode> media;

  PostView(
      Function<String, ObjectNode> posts,
      Function<String, ObjectNode> users,
      Function<String, ObjectNode> media) {
    this.posts = posts;
    this.users = users;
    this.media = media;
  }

  /**
   * Answers {@code GET /2/posts?ids=...} ({@code single == null}) or {@code GET /2/posts/{single}}.
   */
  SimResponse answer(String rawQuery, String single) {
    List<String[]> pairs = OAuthSignature.pairs(rawQuery);
    if (pairs == null) {
      return Api.badRequest("Malformed percent-encoding in the query");
    }
    Map<String, String> query = new LinkedHashMap<>();
    for (String[] pair : pairs) {
      query.merge(pair[0], pair[1], (a, b) -> a + "," + b);
    }
    ArrayNode errors = Json.MAPPER.createArrayNode();
    List<String> ids = new ArrayList<>();
    if (single != null) {
      if (!ID.matcher(single).matches()) {
        invalid(
            errors, "id", single, "The `id` query parameter value [" + single + "] is not valid");
      }
      ids.add(single);
    } else {
      String raw = query.get("ids");
      if (raw == null || raw.isBlank()) {
        invalid(errors, "ids", "", "The `ids` query parameter can not be empty");
      } else {
        Set<String> distinct = new LinkedHashSet<>();
        for (String id : raw.split(",", -1)) {
          if (!ID.matcher(id).matches()) {
            invalid(
                errors,
                "ids",
                id,
                "The `ids` query parameter value [" + id + "] does not match ^[0-9]{1,19}$");
          }
          distinct.add(id);
        }
        if (distinct.size() > MAX_IDS) {
          invalid(
              errors,
              "ids",
              raw,
              "The number of values in the `ids` query parameter list ["
                  + distinct.size()
                  + "] is not between 1 and "
                  + MAX_IDS);
        }
        ids.addAll(distinct);
      }
    }
    for (String name : query.keySet()) {
      if (!name.equals("ids") || single != null) {
        if (!Set.of("post.fields", "user.fields", "media.fields", "expansions").contains(name)) {
          invalid(
              errors,
              name,
              query.get(name),
              "The query parameter ["
                  + name
                  + "] is not one of [ids, expansions, post.fields, user.fields, media.fields]");
        }
      }
    }
    Set<String> postFields = names(query, "post.fields", POST_FIELDS, errors);
    Set<String> userFields = names(query, "user.fields", USER_FIELDS, errors);
    Set<String> mediaFields = names(query, "media.fields", MEDIA_FIELDS, errors);
    Set<String> expansions = names(query, "expansions", EXPANSIONS, errors);
    if (!errors.isEmpty()) {
      ObjectNode body = Json.object();
      body.set("errors", errors);
      body.put("title", "Invalid Request");
      body.put("detail", "One or more parameters to your request was invalid.");
      body.put("type", SimResponse.PROBLEM_BASE + "invalid-request");
      return SimResponse.json(400, body);
    }
    Map<String, ObjectNode> includedUsers = new LinkedHashMap<>();
    Map<String, ObjectNode> includedPosts = new LinkedHashMap<>();
    Map<String, ObjectNode> includedMedia = new LinkedHashMap<>();
    ArrayNode data = Json.MAPPER.createArrayNode();
    ArrayNode notFound = Json.MAPPER.createArrayNode();
    for (String id : ids) {
      ObjectNode post = posts.apply(id);
      if (post == null) {
        notFound.add(notFound(id, single != null ? "id" : "ids"));
        continue;
      }
      data.add(select(post, postFields, Set.of("id", "text")));
      expand(
          post,
          expansions,
          postFields,
          userFields,
          mediaFields,
          includedUsers,
          includedPosts,
          includedMedia);
    }
    ObjectNode body = Json.object();
    if (!data.isEmpty()) {
      body.set("data", single != null ? data.get(0) : data);
      ObjectNode includes = Json.object();
      put(includes, "users", includedUsers);
      put(includes, "posts", includedPosts);
      put(includes, "media", includedMedia);
      if (!includes.isEmpty()) {
        body.set("includes", includes);
      }
    }
    if (!notFound.isEmpty()) {
      body.set("errors", notFound);
    }
    return SimResponse.ok(body);
  }

  private void expand(
      ObjectNode post,
      Set<String> expansions,
      Set<String> postFields,
      Set<String> userFields,
      Set<String> mediaFields,
      Map<String, ObjectNode> includedUsers,
      Map<String, ObjectNode> includedPosts,
      Map<String, ObjectNode> includedMedia) {
    Set<String> defaultUser = Set.of("id", "name", "username");
    if (expansions.contains("author_id")) {
      addUser(Json.text(post, "author_id"), userFields, defaultUser, includedUsers);
    }
    if (expansions.contains("in_reply_to_user_id")) {
      addUser(Json.text(post, "in_reply_to_user_id"), userFields, defaultUser, includedUsers);
    }
    if (expansions.contains("entities.mentions.username")) {
      for (JsonNode mention : post.path("entities").path("mentions")) {
        addUser(Json.text(mention, "id"), userFields, defaultUser, includedUsers);
      }
    }
    if (expansions.contains("attachments.media_keys")) {
      for (JsonNode key : post.path("attachments").path("media_keys")) {
        ObjectNode found = media.apply(key.asText());
        if (found != null) {
          includedMedia.putIfAbsent(
              key.asText(), select(found, mediaFields, Set.of("media_key", "type")));
        }
      }
    }
    for (JsonNode ref : post.path("referenced_posts")) {
      ObjectNode referenced = posts.apply(ref.path("id").asText());
      if (referenced == null) {
        continue;
      }
      if (expansions.contains("referenced_posts.id")) {
        includedPosts.putIfAbsent(
            referenced.get("id").asText(), select(referenced, postFields, Set.of("id", "text")));
      }
      if (expansions.contains("referenced_posts.id.author_id")) {
        addUser(Json.text(referenced, "author_id"), userFields, defaultUser, includedUsers);
      }
    }
    if (expansions.contains("edit_history_post_ids")) {
      for (JsonNode id : post.path("edit_history_post_ids")) {
        ObjectNode version =
            id.asText().equals(post.get("id").asText()) ? null : posts.apply(id.asText());
        if (version != null) {
          includedPosts.putIfAbsent(id.asText(), select(version, postFields, Set.of("id", "text")));
        }
      }
    }
  }

  private void addUser(
      String id, Set<String> fields, Set<String> always, Map<String, ObjectNode> included) {
    if (id == null || included.containsKey(id)) {
      return;
    }
    ObjectNode user = users.apply(id);
    if (user != null) {
      included.put(id, select(user, fields, always));
    }
  }

  private static ObjectNode select(ObjectNode full, Set<String> fields, Set<String> always) {
    ObjectNode out = Json.object();
    full.fields()
        .forEachRemaining(
            field -> {
              if (always.contains(field.getKey()) || fields.contains(field.getKey())) {
                out.set(field.getKey(), field.getValue().deepCopy());
              }
            });
    return out;
  }

  private static void put(ObjectNode includes, String name, Map<String, ObjectNode> objects) {
    if (!objects.isEmpty()) {
      includes.putArray(name).addAll(objects.values());
    }
  }

  private static Set<String> names(
      Map<String, String> query, String parameter, Set<String> known, ArrayNode errors) {
    String raw = query.get(parameter);
    Set<String> names = new LinkedHashSet<>();
    if (raw == null) {
      return names;
    }
    for (String name : raw.split(",", -1)) {
      if (!known.contains(name)) {
        invalid(
            errors,
            parameter,
            name,
            "The `"
                + parameter
                + "` query parameter value ["
                + name
                + "] is not one of "
                + new java.util.TreeSet<>(known));
      }
      names.add(name);
    }
    return names;
  }

  private static void invalid(ArrayNode errors, String parameter, String value, String message) {
    ObjectNode error = errors.addObject();
    error.putObject("parameters").putArray(parameter).add(value);
    error.put("message", message);
  }

  private static ObjectNode notFound(String id, String parameter) {
    ObjectNode error = Json.object();
    error.put("value", id);
    error.put(
        "detail",
        parameter.equals("ids")
            ? "Could not find post with ids: [" + id + "]."
            : "Could not find post with id: [" + id + "].");
    error.put("title", "Not Found Error");
    error.put("resource_type", "post");
    error.put("parameter", parameter);
    error.put("resource_id", id);
    error.put("type", NOT_FOUND_TYPE);
    return error;
  }
}
