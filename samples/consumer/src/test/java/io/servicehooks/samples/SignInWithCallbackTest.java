package io.servicehooks.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.servicehooks.registration.WebhookClient;
import io.servicehooks.testkit.ConsumerStub;
import io.servicehooks.testkit.Events;
import io.servicehooks.testkit.PlatformSimulator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The web callback example of docs/acting-for-a-user.md, driven by a "browser" (a real HttpClient
 * that follows the redirects and submits the authorize form) against the simulator.
 */
final class SignInWithCallbackTest {

  private final PlatformSimulator platform =
      PlatformSimulator.builder().localMode(true).build().start();
  private final HttpClient browser = HttpClient.newHttpClient(); // never follows redirects

  @AfterEach
  void stop() {
    platform.close();
  }

  private HttpResponse<String> get(URI uri) throws Exception {
    return browser.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static URI location(HttpResponse<String> response) {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(302);
    return URI.create(response.headers().firstValue("location").orElseThrow());
  }

  @Test
  void login_userAuthorizes_signedInAndDirectMessagesDelivered() throws Exception {
    try (ConsumerStub consumer = ConsumerStub.start(platform.consumerSecret())) {
      WebhookClient client =
          WebhookClient.builder()
              .baseUrl(platform.baseUrl())
              .apiCredentials(platform.apiKey(), platform.apiSecret())
              .allowInsecureUrls(true)
              .build();
      String webhookId = client.create(consumer.url("/webhook")).id();
      try (SignInWithCallback app = SignInWithCallback.start(client, 0, webhookId)) {
        URI authorize = location(get(app.loginUrl()));
        HttpResponse<String> page = get(authorize);
        Matcher token =
            Pattern.compile("name=\"oauth_token\" value=\"([^\"]+)\"").matcher(page.body());
        assertThat(token.find()).as(page.body()).isTrue();
        URI callback =
            location(
                browser.send(
                    HttpRequest.newBuilder(authorize)
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(
                            HttpRequest.BodyPublishers.ofString(
                                "oauth_token=" + token.group(1) + "&screen_name=carol"))
                        .build(),
                    HttpResponse.BodyHandlers.ofString()));
        HttpResponse<String> signedIn = get(callback);

        assertThat(signedIn.statusCode()).as(signedIn.body()).isEqualTo(200);
        assertThat(signedIn.body()).contains("Signed in as @carol");
        String userId = app.users().keySet().iterator().next();
        platform.deliver(
            Events.activity(
                "dm.received",
                userId,
                Map.of("direct_message_events", List.of(Map.of("id", "1")))));
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () -> consumer.deliveryBodies().stream().anyMatch(b -> b.contains("dm.received")));
        // the callback cannot be replayed: the request token was used
        assertThat(get(callback).statusCode()).isEqualTo(400);
      }
    }
  }

  @Test
  void callback_cancelledOnThePlatform_400StartAgain() throws Exception {
    WebhookClient client =
        WebhookClient.builder()
            .baseUrl(platform.baseUrl())
            .apiCredentials(platform.apiKey(), platform.apiSecret())
            .build();
    try (SignInWithCallback app = SignInWithCallback.start(client, 0, null)) {
      URI authorize = location(get(app.loginUrl()));
      String token = authorize.getQuery().substring("oauth_token=".length());
      URI callback =
          location(
              browser.send(
                  HttpRequest.newBuilder(authorize)
                      .header("Content-Type", "application/x-www-form-urlencoded")
                      .POST(
                          HttpRequest.BodyPublishers.ofString("oauth_token=" + token + "&cancel=1"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString()));

      HttpResponse<String> answer = get(callback);

      assertThat(callback.getQuery()).startsWith("denied=");
      assertThat(answer.statusCode()).isEqualTo(400);
      assertThat(app.users()).isEmpty();
    }
  }

  @Test
  void docsSnippet_isTheSampleCode() throws Exception {
    String source =
        Files.readString(Path.of("src/main/java/io/servicehooks/samples/SignInWithCallback.java"));
    String expected =
        normalized(
            source.substring(
                source.indexOf("// DOC-BEGIN") + "// DOC-BEGIN".length(),
                source.indexOf("// DOC-END")));
    String page = Files.readString(Path.of("../../docs/acting-for-a-user.md"));

    assertThat(normalized(page)).contains(expected);
  }

  private static String normalized(String text) {
    return text.lines()
        .filter(l -> !l.isBlank())
        .map(String::strip)
        .collect(Collectors.joining("\n"));
  }
}
