package io.servicehooks.testkit;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The authorize page of the OAuth 1.0a sign-in ({@code /oauth/authorize}, {@code
 * /oauth/authenticate}): {@code GET} shows the form for a pending request token, {@code POST} takes
 * the user's decision and answers with the PIN page ({@code oob}) or a redirect to the callback.
 * The token state stays with {@link OAuthEndpoints}.
 */
final class AuthorizePage {

  private static final Pattern SCREEN_NAME = Pattern.compile("[A-Za-z0-9_]{1,15}");

  private final OAuthEndpoints oauth;

  AuthorizePage(OAuthEndpoints oauth) {
    this.oauth = oauth;
  }

  SimResponse page(ApiRequest request) {
    Map<String, String> query = OAuthEndpoints.firstValues(OAuthSignature.pairs(request.query()));
    String token = query.get("oauth_token");
    if (!oauth.awaitsDecision(token)) {
      return html(
          404,
          "<h1>This page is no longer valid</h1><p>The request token is unknown, expired or"
              + " used. Go back to the application and start again.</p>");
    }
    String prefill = query.getOrDefault("screen_name", OAuthEndpoints.DEMO_SCREEN_NAME);
    return html(
        200,
        "<h1>Authorize the application to act for you?</h1>"
            + "<form method=\"post\" action=\""
            + request.path()
            + "\"><input type=\"hidden\" name=\"oauth_token\" value=\""
            + escape(token)
            + "\"><label>Screen name <input name=\"screen_name\" value=\""
            + escape(prefill)
            + "\"></label> <button type=\"submit\" name=\"authorize\" value=\"1\">Authorize app"
            + "</button> <button type=\"submit\" name=\"cancel\" value=\"1\">Cancel</button>"
            + "</form>");
  }

  SimResponse decision(ApiRequest request) {
    Map<String, String> form =
        OAuthEndpoints.firstValues(
            OAuthSignature.pairs(new String(request.body(), StandardCharsets.UTF_8)));
    String token = form.get("oauth_token");
    String screenName = form.getOrDefault("screen_name", OAuthEndpoints.DEMO_SCREEN_NAME).strip();
    if (!SCREEN_NAME.matcher(screenName).matches()) {
      return html(400, "<h1>That is not a screen name</h1>");
    }
    OAuthEndpoints.Decision decided = oauth.decide(token, screenName, form.containsKey("cancel"));
    if (decided == null) {
      return html(404, "<h1>This page is no longer valid</h1>");
    }
    String callback = decided.callback();
    String verifier = decided.verifier();
    if (callback.equals("oob")) {
      return verifier == null
          ? html(200, "<h1>You did not authorize the application.</h1>")
          : html(
              200,
              "<h1>You authorized the application.</h1><p>Enter this PIN in the application:"
                  + " <code id=\"oauth_pin\">"
                  + verifier
                  + "</code></p>");
    }
    String separator = callback.contains("?") ? "&" : "?";
    String location =
        verifier == null
            ? callback + separator + "denied=" + OAuthSignature.encode(token)
            : callback
                + separator
                + "oauth_token="
                + OAuthSignature.encode(token)
                + "&oauth_verifier="
                + OAuthSignature.encode(verifier);
    return new SimResponse(302, Map.of("location", location), new byte[0]);
  }

  private static SimResponse html(int status, String body) {
    String page =
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>Platform simulator</title>"
            + "</head><body>"
            + body
            + "</body></html>";
    return new SimResponse(
        status,
        Map.of("content-type", "text/html;charset=utf-8"),
        page.getBytes(StandardCharsets.UTF_8));
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;")
        .replace("'", "&#39;");
  }
}
