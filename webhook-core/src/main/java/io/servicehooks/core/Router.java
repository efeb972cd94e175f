package io.servicehooks.core;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Picks the listeners for an event type. Patterns: an exact type ({@code post.create}), a prefix
 * wildcard ({@code dm.*} matches {@code dm.sent} and {@code dm.x.y} but not {@code dm}), and {@code
 * *} for every event. Matching listeners run in the order they were registered, whatever kind of
 * pattern each used.
 */
final class Router {

  record Route(String pattern, WebhookListener listener) {
    boolean matches(String type) {
      if (pattern.equals("*")) {
        return true;
      }
      if (pattern.endsWith(".*")) {
        return type.length() > pattern.length() - 1
            && type.startsWith(pattern.substring(0, pattern.length() - 1));
      }
      return pattern.equals(type);
    }
  }

  private static final Route[] NONE = new Route[0];
  private static final int CACHE_LIMIT = 4096;

  private final List<Route> routes;
  private final Map<String, Route[]> byType = new ConcurrentHashMap<>();

  Router(List<Route> routes) {
    this.routes = List.copyOf(routes);
  }

  /** The routes whose pattern matches {@code type}, in registration order (their listeners run). */
  Route[] routesFor(String type) {
    Route[] cached = byType.get(type);
    if (cached != null) {
      return cached;
    }
    List<Route> found = new ArrayList<>();
    for (Route r : routes) {
      if (r.matches(type)) {
        found.add(r);
      }
    }
    Route[] listeners = found.isEmpty() ? NONE : found.toArray(NONE);
    if (byType.size() < CACHE_LIMIT) {
      byType.put(type, listeners);
    }
    return listeners;
  }

  static void checkPattern(String pattern) {
    if (pattern == null || pattern.isBlank()) {
      throw new IllegalArgumentException("event type pattern must not be blank");
    }
    // Type names are dot-separated words: a pattern with an empty word matches no event, and
    // "post." is most often a prefix wildcard without its '*'.
    String p = pattern.strip();
    if (p.endsWith(".")) {
      throw new IllegalArgumentException(
          "event type pattern '"
              + pattern
              + "' matches no event: a type never ends with '.'; for every type under it write '"
              + p
              + "*'");
    }
    if (p.startsWith(".") || p.contains("..")) {
      throw new IllegalArgumentException(
          "event type pattern '"
              + pattern
              + "' matches no event: a type never starts with '.' or has '..'");
    }
    int star = pattern.indexOf('*');
    if (star >= 0
        && !(pattern.equals("*") || (pattern.endsWith(".*") && star == pattern.length() - 1))) {
      throw new IllegalArgumentException(
          "event type pattern '"
              + pattern
              + "': '*' may only stand alone or end a prefix like 'dm.*'");
    }
  }
}
