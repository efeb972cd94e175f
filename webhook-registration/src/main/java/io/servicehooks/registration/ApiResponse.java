package io.servicehooks.registration;

import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;

/** One HTTP answer of the platform, kept whole so errors can carry the raw body. */
record ApiResponse(String method, String path, int status, HttpHeaders headers, byte[] body) {

  boolean isSuccess() {
    return status >= 200 && status < 300;
  }

  String bodyText() {
    return body == null ? "" : new String(body, StandardCharsets.UTF_8);
  }
}
