package io.servicehooks.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A JSON value kept as a slice of the delivery's body and turned into a tree only when first asked
 * for. Most listeners read one or two fields or none, so the hot path scans the body once and
 * builds no tree for the payload. The slice was already tokenized by the scan, so parsing it later
 * does not fail on syntax.
 */
final class LazyJson {

  static final LazyJson MISSING = new LazyJson(MissingNode.getInstance());

  private final ObjectMapper mapper;
  private final byte[] bytes;
  private final int offset;
  private final int length;
  private volatile JsonNode node;

  LazyJson(ObjectMapper mapper, byte[] bytes, int offset, int length) {
    this.mapper = mapper;
    this.bytes = bytes;
    this.offset = offset;
    this.length = length;
  }

  LazyJson(JsonNode node) {
    this.mapper = null;
    this.bytes = null;
    this.offset = 0;
    this.length = 0;
    this.node = node == null ? MissingNode.getInstance() : node;
  }

  JsonNode node() {
    JsonNode n = node;
    if (n == null) {
      // Racing threads may both parse; they get equal trees and one wins. No lock needed.
      try {
        n = mapper.readTree(bytes, offset, length);
      } catch (IOException e) {
        throw new UncheckedIOException("event JSON cannot be read", e);
      }
      node = n;
    }
    return n;
  }

  /**
   * The value as JSON text: the body's own bytes where it is a slice of it, else the tree written
   * by {@code with}; {@code null} for a missing value.
   */
  String text(ObjectMapper with) {
    if (bytes != null) {
      return new String(bytes, offset, length, java.nio.charset.StandardCharsets.UTF_8);
    }
    JsonNode n = node();
    if (n.isMissingNode()) {
      return null;
    }
    try {
      return with.writeValueAsString(n);
    } catch (IOException e) {
      throw new UncheckedIOException("event JSON cannot be written", e);
    }
  }

  /** A slice of {@code text}'s UTF-8 bytes, or {@link #MISSING} for {@code null}. */
  static LazyJson of(ObjectMapper mapper, String text) {
    if (text == null) {
      return MISSING;
    }
    byte[] utf8 = text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    return new LazyJson(mapper, utf8, 0, utf8.length);
  }

  /** Maps straight from the bytes when no tree was built yet. */
  <T> T as(ObjectMapper with, Class<T> type) throws IOException {
    JsonNode n = node;
    if (n == null && bytes != null) {
      return with.readValue(bytes, offset, length, type);
    }
    return with.treeToValue(node(), type);
  }
}
