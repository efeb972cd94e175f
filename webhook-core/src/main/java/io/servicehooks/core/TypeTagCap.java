package io.servicehooks.core;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Caps the values of an event type tag: the first {@code max} types seen keep their name, later
 * ones read {@link WebhookConsumer#OTHER_TYPE_TAG}, so a stream of odd type names cannot grow the
 * tag's values (and every meter or span index keyed by it) without bound.
 */
final class TypeTagCap {

  private final Set<String> kept = ConcurrentHashMap.newKeySet();
  private final int max;
  private volatile boolean full;

  TypeTagCap(int max) {
    this.max = max;
  }

  /** The tag value for {@code type}. */
  String tag(String type) {
    if (kept.contains(type)) {
      return type;
    }
    return full ? WebhookConsumer.OTHER_TYPE_TAG : add(type);
  }

  private synchronized String add(String type) {
    if (kept.contains(type)) {
      return type;
    }
    if (kept.size() < max) {
      kept.add(type);
      return type;
    }
    full = true;
    return WebhookConsumer.OTHER_TYPE_TAG;
  }

  @Override
  public String toString() {
    return "TypeTagCap[" + kept.size() + "/" + max + "]";
  }
}
