package io.servicehooks.core;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
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
  // The text, once made: a batch's events share one delivery, so a durable store asking each of
  // them for it gets one string, not one copy per event (2,000 copies of a 1 MiB body otherwise).
  private volatile String text;

  LazyJson(ObjectMapper mapper, byte[] bytes, int offset, int length) {
    this.mapper = mapper;
    this.bytes = bytes;
    this.offset = offset;
    this.length = length;
  }

  /** A slice whose tree is already built (a batch's whole body, parsed to find its events). */
  LazyJson(ObjectMapper mapper, byte[] bytes, int offset, int length, JsonNode node) {
    this(mapper, bytes, offset, length);
    this.node = node;
  }

  LazyJson(JsonNode node) {
    this.mapper = null;
    this.bytes = null;
    this.offset = 0;
    this.length = 0;
    this.node = node == null ? MissingNode.getInstance() : node;
  }

  /** Text read back from a store: encoded and parsed only when first read. */
  private LazyJson(ObjectMapper mapper, String text) {
    this.mapper = mapper;
    this.bytes = null;
    this.offset = 0;
    this.length = 0;
    this.text = text;
  }

  JsonNode node() {
    JsonNode n = node;
    if (n == null) {
      // Racing threads may both parse; they get equal trees and one wins. No lock needed.
      try {
        n = bytes != null ? mapper.readTree(bytes, offset, length) : mapper.readTree(text);
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
    String t = text;
    if (t != null) {
      return t;
    }
    if (bytes != null) {
      t = new String(bytes, offset, length, java.nio.charset.StandardCharsets.UTF_8);
      text = t;
      return t;
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

  /**
   * Stored text, or {@link #MISSING} for {@code null}. Kept as the string until read: the events of
   * a batch restored from a store share one delivery string, which most listeners never parse.
   */
  static LazyJson of(ObjectMapper mapper, String text) {
    if (text == null) {
      return MISSING;
    }
    return new LazyJson(mapper, text);
  }

  /**
   * A parser over the value that builds no tree: over the body's bytes or the stored text, or over
   * the tree when one is already built; a missing value reads as no token at all.
   */
  JsonParser parser() throws IOException {
    JsonNode n = node;
    if (n == null && bytes != null) {
      return mapper.getFactory().createParser(bytes, offset, length);
    }
    if (n == null && text != null) {
      return mapper.getFactory().createParser(text);
    }
    return node().traverse();
  }

  /** Maps straight from the bytes when no tree was built yet. */
  <T> T as(ObjectReader with, Class<T> type) throws IOException {
    JsonNode n = node;
    if (n == null && bytes != null) {
      return with.readValue(bytes, offset, length);
    }
    if (n == null && text != null) {
      return with.readValue(text);
    }
    return with.treeToValue(node(), type);
  }
}
