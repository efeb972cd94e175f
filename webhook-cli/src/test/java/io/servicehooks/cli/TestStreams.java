package io.servicehooks.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.servicehooks.testkit.PlatformSimulator;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/** Opens real activity streams on a simulator, as a consumer would, and closes them at the end. */
final class TestStreams implements AutoCloseable {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private final PlatformSimulator platform;
  private final List<InputStream> open = new ArrayList<>();

  TestStreams(PlatformSimulator platform) {
    this.platform = platform;
  }

  String bearer() {
    String pair =
        URLEncoder.encode(platform.apiKey(), StandardCharsets.UTF_8)
            + ":"
            + URLEncoder.encode(platform.apiSecret(), StandardCharsets.UTF_8);
    try {
      HttpResponse<String> token =
          HTTP.send(
              HttpRequest.newBuilder(platform.baseUrl().resolve("/oauth2/token"))
                  .header(
                      "Authorization",
                      "Basic "
                          + Base64.getEncoder()
                              .encodeToString(pair.getBytes(StandardCharsets.UTF_8)))
                  .header("Content-Type", "application/x-www-form-urlencoded;charset=UTF-8")
                  .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return new ObjectMapper().readTree(token.body()).get("access_token").asText();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Opens one stream and returns its body (not read). */
  InputStream open() {
    try {
      HttpResponse<InputStream> stream =
          HTTP.send(
              HttpRequest.newBuilder(platform.baseUrl().resolve("/2/activity/stream"))
                  .header("Authorization", "Bearer " + bearer())
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofInputStream());
      if (stream.statusCode() != 200) {
        throw new AssertionError("stream refused: " + stream.statusCode());
      }
      open.add(stream.body());
      return stream.body();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    for (InputStream in : open) {
      try {
        in.close();
      } catch (IOException e) {
        // already ended
      }
    }
  }
}
