package io.servicehooks.testkit;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** A transport-neutral view of one HTTP request to the simulated platform. */
record ApiRequest(
    String method, String path, String query, Map<String, List<String>> headers, byte[] body) {

  /** First value of a header, looked up case-insensitively; {@code null} when absent. */
  String header(String name) {
    for (Map.Entry<String, List<String>> e : headers.entrySet()) {
      if (e.getKey() != null
          && e.getKey().toLowerCase(Locale.ROOT).equals(name.toLowerCase(Locale.ROOT))
          && !e.getValue().isEmpty()) {
        return e.getValue().get(0);
      }
    }
    return null;
  }

  @Override
  public String toString() {
    // Headers and body may carry credentials and tokens; never print them.
    return method + " " + path;
  }
}
