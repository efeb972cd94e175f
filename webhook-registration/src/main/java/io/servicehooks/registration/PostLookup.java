package io.servicehooks.registration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The answer of a post lookup ({@link Posts#lookup}): the posts found, with their authors, media
 * and referenced posts resolved from {@code includes}, and the ids that found none, each a {@link
 * NotFound} beside them. A lookup of more than 100 ids was several requests: their answers are
 * merged here, in the order asked.
 *
 * <p>Immutable and thread-safe.
 */
public final class PostLookup {

  private final List<Post> found;
  private final List<NotFound> notFound;
  private final List<RawJson> pages;
  private volatile JsonNode merged;

  PostLookup(List<Post> found, List<NotFound> notFound, List<RawJson> pages) {
    this.found = List.copyOf(found);
    this.notFound = List.copyOf(notFound);
    this.pages = List.copyOf(pages);
  }

  /**
   * Reads one answer of {@code GET /2/posts} or {@code GET /2/posts/{id}} (a JSON object with
   * {@code data}, an object or an array, {@code includes} and {@code errors}), as a lookup does:
   * for answers kept or received by other means.
   *
   * @throws IOException when the bytes are not such a JSON object
   */
  public static PostLookup parse(byte[] answer) throws IOException {
    Objects.requireNonNull(answer, "answer");
    return LookupParser.parse(answer);
  }

  /** The posts found, in the order of the answer. */
  public List<Post> found() {
    return found;
  }

  /** The ids that found no post; empty when every id was found. */
  public List<NotFound> notFound() {
    return notFound;
  }

  /** The post with this id, when found. */
  public Optional<Post> find(String id) {
    for (Post post : found) {
      if (post.id().equals(id)) {
        return Optional.of(post);
      }
    }
    return Optional.empty();
  }

  /** Each answer as received, one per request. */
  public List<RawJson> pages() {
    return pages;
  }

  /**
   * The platform's answer as a Jackson tree, with {@code data}, {@code includes} and {@code errors}
   * as received. When the lookup took several requests: one object with their {@code data} and
   * {@code errors} concatenated and their {@code includes} merged (each object once).
   */
  public JsonNode raw() {
    JsonNode tree = merged;
    if (tree == null) {
      tree = pages.size() == 1 ? pages.get(0).tree() : merge();
      merged = tree;
    }
    return tree;
  }

  private JsonNode merge() {
    ObjectNode root = Responses.JSON.createObjectNode();
    ArrayNode data = Responses.JSON.createArrayNode();
    ArrayNode errors = Responses.JSON.createArrayNode();
    ObjectNode includes = Responses.JSON.createObjectNode();
    Set<String> seen = new HashSet<>();
    for (RawJson page : pages) {
      JsonNode tree = page.tree();
      JsonNode pageData = tree.get("data");
      if (pageData != null && pageData.isArray()) {
        data.addAll((ArrayNode) pageData);
      } else if (pageData != null && pageData.isObject()) {
        data.add(pageData);
      }
      JsonNode pageErrors = tree.get("errors");
      if (pageErrors != null && pageErrors.isArray()) {
        errors.addAll((ArrayNode) pageErrors);
      }
      JsonNode pageIncludes = tree.get("includes");
      if (pageIncludes != null && pageIncludes.isObject()) {
        for (var entry : pageIncludes.properties()) {
          if (!entry.getValue().isArray()) {
            continue;
          }
          ArrayNode into = includes.withArray(entry.getKey());
          for (JsonNode item : entry.getValue()) {
            String key = Responses.text(item, item.has("media_key") ? "media_key" : "id");
            if (key == null || seen.add(entry.getKey() + '\u0000' + key)) {
              into.add(item);
            }
          }
        }
      }
    }
    if (!data.isEmpty()) {
      root.set("data", data);
    }
    if (!includes.isEmpty()) {
      root.set("includes", includes);
    }
    if (!errors.isEmpty()) {
      root.set("errors", errors);
    }
    return root;
  }

  /** Several answers as one lookup, in order. */
  static PostLookup merged(List<PostLookup> parts) {
    if (parts.size() == 1) {
      return parts.get(0);
    }
    List<Post> found = new ArrayList<>();
    List<NotFound> notFound = new ArrayList<>();
    List<RawJson> pages = new ArrayList<>();
    for (PostLookup part : parts) {
      found.addAll(part.found);
      notFound.addAll(part.notFound);
      pages.addAll(part.pages);
    }
    return new PostLookup(found, notFound, pages);
  }

  @Override
  public String toString() {
    return "PostLookup[found=" + found.size() + ", notFound=" + notFound.size() + "]";
  }
}
