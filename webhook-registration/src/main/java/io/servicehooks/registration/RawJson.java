package io.servicehooks.registration;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One object of a platform answer exactly as it was received: its JSON text, and a Jackson tree of
 * it made on first use. A lookup keeps every post, user and media item this way beside its typed
 * record, so a field the records do not carry is still at hand ({@code post.raw().get("...")})
 * without parsing the answer twice when nobody asks.
 *
 * <p>Immutable and thread-safe; equal when the JSON text is the same.
 */
public final class RawJson {

  private final byte[] source;
  private final int offset;
  private final int length;
  private volatile JsonNode tree;

  RawJson(byte[] source, int offset, int length) {
    this.source = source;
    this.offset = offset;
    this.length = length;
  }

  /** A raw value from a tree already at hand. */
  static RawJson of(JsonNode tree) {
    byte[] bytes;
    try {
      bytes = Responses.JSON.writeValueAsBytes(tree);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    RawJson raw = new RawJson(bytes, 0, bytes.length);
    raw.tree = tree;
    return raw;
  }

  /** The JSON as a Jackson tree (parsed on the first call, then kept). */
  public JsonNode tree() {
    JsonNode parsed = tree;
    if (parsed == null) {
      try {
        parsed = Responses.JSON.readTree(source, offset, length);
      } catch (IOException e) {
        // the bytes were read once already as part of a well-formed answer
        throw new UncheckedIOException("the kept JSON no longer parses", e);
      }
      tree = parsed;
    }
    return parsed;
  }

  /** The JSON text as received. */
  public String text() {
    return new String(source, offset, length, StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof RawJson that
        && Arrays.equals(
            source, offset, offset + length, that.source, that.offset, that.offset + that.length);
  }

  @Override
  public int hashCode() {
    int hash = 1;
    for (int i = offset; i < offset + length; i++) {
      hash = 31 * hash + source[i];
    }
    return hash;
  }

  /** The length only: the text is the platform's, and may be long. */
  @Override
  public String toString() {
    return "RawJson[" + length + " bytes]";
  }
}
