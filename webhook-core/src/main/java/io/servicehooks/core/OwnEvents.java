package io.servicehooks.core;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * Tells an event the subscribed user caused itself: a {@code post.*} whose author, or a {@code
 * dm.*} whose sender, is the event's {@link WebhookEvent#forUserId() for_user_id}. A bot that
 * answers every mention would otherwise answer its own reply that mentions it, and so on forever;
 * Slack Bolt ignores an app's own events for the same reason.
 *
 * <p>The author or sender is read with one streaming pass over the payload that skips every other
 * value, in both payload families: {@code author_id}, the legacy {@code user.id_str} and {@code
 * status.user_id} for posts; {@code sender_id}, the legacy {@code message_create.sender_id} and the
 * envelope's first {@code direct_message_events} entry for direct messages. No record is bound and
 * no tree is built. An event without {@code for_user_id}, of another family, or whose author cannot
 * be found is never taken for an own event.
 */
final class OwnEvents {

  private OwnEvents() {}

  /** Whether the subscribed user caused {@code event} itself. */
  static boolean isOwn(WebhookEvent event) {
    String type = event.type();
    boolean post = type.startsWith("post.");
    if (!post && !type.startsWith("dm.")) {
      return false;
    }
    String forUser = event.forUserId().orElse(null);
    if (forUser == null) {
      return false;
    }
    String scanned = post ? event.scannedAuthorId() : event.scannedSenderId();
    if (scanned != null) {
      return forUser.equals(scanned); // the first top-level author_id or sender_id decides
    }
    return forUser.equals(post ? author(event.payloadJson()) : sender(event.payloadJson()));
  }

  /**
   * A post's author: {@code author_id}, else {@code user.id_str}/{@code user.id}, else the legacy
   * deletion's {@code status.user_id}; null when none.
   */
  static String author(LazyJson payload) {
    try (JsonParser p = payload.parser()) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      String user = null;
      String status = null;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        switch (name) {
          case "author_id" -> {
            String id = scalar(p, value);
            if (id != null) {
              return id;
            }
          }
          case "user" -> user = firstIn(p, value, "id_str", "id");
          case "status" -> status = firstIn(p, value, "user_id_str", "user_id");
          default -> p.skipChildren();
        }
      }
      return user != null ? user : status;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** A direct message's sender, in either family; null when none. */
  static String sender(LazyJson payload) {
    try (JsonParser p = payload.parser()) {
      return p.nextToken() == JsonToken.START_OBJECT ? senderIn(p, true) : null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * Reads the object the parser is at (its START_OBJECT already read) to its end: its {@code
   * sender_id}, else its {@code message_create.sender_id}, else (at the payload's top) the first
   * {@code direct_message_events} entry's.
   */
  private static String senderIn(JsonParser p, boolean top) throws IOException {
    String direct = null;
    String create = null;
    String listed = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      if (name.equals("sender_id")) {
        direct = first(direct, scalar(p, value));
      } else if (name.equals("message_create")) {
        create = first(create, firstIn(p, value, "sender_id"));
      } else if (top && name.equals("direct_message_events") && value == JsonToken.START_ARRAY) {
        JsonToken item = p.nextToken();
        if (item == JsonToken.START_OBJECT) {
          listed = senderIn(p, false);
        } else if (item != JsonToken.END_ARRAY) {
          p.skipChildren();
        }
        if (item != JsonToken.END_ARRAY) {
          while (p.nextToken() != JsonToken.END_ARRAY) {
            p.skipChildren();
          }
        }
      } else {
        p.skipChildren();
      }
    }
    return direct != null ? direct : create != null ? create : listed;
  }

  /**
   * The first of {@code names} the object at the parser holds as a scalar; the object is read to
   * its end (any other value skipped).
   */
  private static String firstIn(JsonParser p, JsonToken value, String... names) throws IOException {
    if (value != JsonToken.START_OBJECT) {
      p.skipChildren();
      return null;
    }
    String[] found = new String[names.length];
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      int at = indexOf(names, name);
      if (at >= 0) {
        found[at] = first(found[at], scalar(p, v));
      } else {
        p.skipChildren();
      }
    }
    for (String f : found) {
      if (f != null) {
        return f;
      }
    }
    return null;
  }

  /** The current value as text when it is a string or a number, else null (and skipped). */
  static String scalar(JsonParser p, JsonToken value) throws IOException {
    if (value == JsonToken.VALUE_STRING
        || value == JsonToken.VALUE_NUMBER_INT
        || value == JsonToken.VALUE_NUMBER_FLOAT) {
      String text = p.getText();
      return text.isEmpty() ? null : text;
    }
    p.skipChildren();
    return null;
  }

  private static int indexOf(String[] names, String name) {
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return i;
      }
    }
    return -1;
  }

  private static String first(String a, String b) {
    return a != null ? a : b;
  }
}
