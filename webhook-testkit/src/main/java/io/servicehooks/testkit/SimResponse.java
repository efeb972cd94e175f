package io.servicehooks.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;

/** A transport-neutral HTTP answer of the simulated platform. */
record SimResponse(int status, Map<String, String> headers, byte[] body) {

  static final String PROBLEM_BASE = "https://api.example.com/2/problems/";

  static SimResponse json(int status, JsonNode body) {
    return json(status, body, "application/json");
  }

  static SimResponse json(int status, JsonNode body, String contentType) {
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("content-type", contentType);
    return new SimResponse(status, headers, Json.bytes(body));
  }

  static SimResponse ok(JsonNode body) {
    return json(200, body);
  }

  /**
   * The webhook API's failure shape: HTTP 400 with {@code errors[0].message = "<Reason>:
   * <details>"} beside the problem fields.
   */
  static SimResponse invalidRequest(String reason, String details) {
    ObjectNode body = Json.object();
    body.putArray("errors").addObject().put("message", reason + ": " + details);
    body.put("title", "Invalid Request");
    body.put("detail", "One or more parameters to your request was invalid.");
    body.put("type", PROBLEM_BASE + "invalid-request");
    return json(400, body);
  }

  /** The plain problem shape {@code {"title","detail","type"}} used for all other errors. */
  static SimResponse problem(int status, String title, String detail, String type) {
    ObjectNode body = Json.object();
    body.put("title", title);
    body.put("detail", detail);
    body.put("type", type.startsWith("about:") ? type : PROBLEM_BASE + type);
    body.put("status", status);
    return json(status, body, "application/problem+json");
  }

  /** The older {@code {"errors":[{"code","label"?,"message"}]}} shape of the token endpoints. */
  static SimResponse codedError(int status, int code, String label, String message) {
    ObjectNode body = Json.object();
    ObjectNode error = body.putArray("errors").addObject();
    error.put("code", code);
    if (label != null) {
      error.put("label", label);
    }
    error.put("message", message);
    return json(status, body);
  }

  SimResponse withHeaders(Map<String, String> extra) {
    Map<String, String> merged = new LinkedHashMap<>(headers);
    merged.putAll(extra);
    return new SimResponse(status, merged, body);
  }

  @Override
  public String toString() {
    // Bodies of token answers carry access tokens; print only the status.
    return "SimResponse[" + status + "]";
  }
}
