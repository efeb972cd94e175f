package io.servicehooks.core;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The checks every event id and type name passes before it becomes a dedup key, a log value and a
 * metric tag (bounded length, valid text), and the hash that stands in for a missing id.
 */
final class EventFields {

  private EventFields() {}

  static void checkId(String what, String id) throws PayloadParser.Malformed {
    if (id == null) {
      return;
    }
    if (id.length() > WebhookConsumer.MAX_EVENT_ID_LENGTH) {
      throw new PayloadParser.Malformed(
          what + " is longer than " + WebhookConsumer.MAX_EVENT_ID_LENGTH + " characters");
    }
    checkText(what, id);
  }

  static void checkType(String what, String type) throws PayloadParser.Malformed {
    if (type.length() > WebhookConsumer.MAX_EVENT_TYPE_LENGTH) {
      throw new PayloadParser.Malformed(
          what + " is longer than " + WebhookConsumer.MAX_EVENT_TYPE_LENGTH + " characters");
    }
    checkText(what, type);
  }

  /**
   * Refuses a value that is not valid text: a lone UTF-16 surrogate (a JSON escape from D800 to
   * DFFF without its pair) has no UTF-8 form, so stores that encode keys (Redis, PostgreSQL) write
   * {@code ?} for it and three different ids ending in D800, in DC01 and in {@code ?} would share
   * one dedup key; a NUL cannot be stored in a PostgreSQL text column at all.
   */
  private static void checkText(String what, String value) throws PayloadParser.Malformed {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\0') {
        throw new PayloadParser.Malformed(what + " contains a NUL character");
      }
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c)
            && i + 1 < value.length()
            && Character.isLowSurrogate(value.charAt(i + 1))) {
          i++; // a pair: one character outside the basic plane
        } else {
          throw new PayloadParser.Malformed(what + " is not valid text (a lone UTF-16 surrogate)");
        }
      }
    }
  }

  static String sha256(ObjectMapper mapper, JsonNode node) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(digest.digest(mapper.writeValueAsBytes(node)));
    } catch (NoSuchAlgorithmException | JsonProcessingException e) {
      throw new IllegalStateException("cannot hash an event", e);
    }
  }

  static String shorten(String s) {
    return s.length() <= 32 ? s : s.substring(0, 32) + "...";
  }
}
