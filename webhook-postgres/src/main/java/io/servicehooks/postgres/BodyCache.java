package io.servicehooks.postgres;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The batch bodies the poller read last. The rows of one batch are taken a few at a time, so
 * without it each look would read the same body again (a 2,000-item batch of 1 MiB: 2 GB read over
 * the wire, one copy per row). Bounded by characters, least recently used out first.
 */
final class BodyCache {

  /** Characters kept at most (8 Mi: a few bodies of the largest size a delivery may have). */
  static final long MAX_CHARS = 8L * 1024 * 1024;

  private final Tables tables;
  private final int timeoutSeconds;
  private final LinkedHashMap<Long, String> bodies = new LinkedHashMap<>(16, 0.75f, true);
  private long chars;

  BodyCache(Tables tables, int timeoutSeconds) {
    this.tables = tables;
    this.timeoutSeconds = timeoutSeconds;
  }

  /** The bodies the taken rows point at, read from {@code c} where not kept; absent if gone. */
  synchronized Map<Long, String> resolve(Connection c, List<DueRows.Taken> taken)
      throws SQLException {
    Map<Long, String> out = new HashMap<>();
    List<Long> missing = new ArrayList<>();
    for (DueRows.Taken t : taken) {
      Long id = t.bodyId();
      if (id == null || t.text()[9] != null || out.containsKey(id) || missing.contains(id)) {
        continue;
      }
      String body = bodies.get(id);
      if (body != null) {
        out.put(id, body);
      } else {
        missing.add(id);
      }
    }
    if (missing.isEmpty()) {
      return out;
    }
    try (PreparedStatement st = c.prepareStatement(tables.readBodies)) {
      st.setQueryTimeout(timeoutSeconds);
      st.setArray(1, c.createArrayOf("bigint", missing.toArray()));
      try (ResultSet r = st.executeQuery()) {
        while (r.next()) {
          long id = r.getLong(1);
          String body = r.getString(2);
          out.put(id, body);
          keep(id, body);
        }
      }
    }
    return out;
  }

  private void keep(long id, String body) {
    if (body.length() > MAX_CHARS) {
      return;
    }
    String old = bodies.put(id, body);
    chars += body.length() - (old == null ? 0 : old.length());
    for (Iterator<String> it = bodies.values().iterator(); chars > MAX_CHARS && it.hasNext(); ) {
      chars -= it.next().length();
      it.remove();
    }
  }
}
